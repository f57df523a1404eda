package dev.svc.client.openfeature;

import com.fasterxml.jackson.databind.JsonNode;
import dev.openfeature.sdk.EvaluationContext;
import dev.openfeature.sdk.ImmutableStructure;
import dev.openfeature.sdk.Value;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Between the client's JSON and OpenFeature's values, both ways. */
final class Values {
  private Values() {}

  /** A config's JSON as an OpenFeature value: objects as structures, JSON null as a null value. */
  static Value of(JsonNode node) {
    switch (node.getNodeType()) {
      case OBJECT -> {
        Map<String, Value> fields = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : node.properties()) {
          fields.put(field.getKey(), of(field.getValue()));
        }
        return new Value(new ImmutableStructure(fields));
      }
      case ARRAY -> {
        List<Value> items = new ArrayList<>(node.size());
        for (JsonNode item : node) items.add(of(item));
        return new Value(items);
      }
      case STRING -> {
        return new Value(node.textValue());
      }
      case BOOLEAN -> {
        return new Value(node.booleanValue());
      }
      case NUMBER -> {
        if (node.isIntegralNumber() && node.canConvertToInt()) return new Value(node.intValue());
        if (node.isIntegralNumber() && node.canConvertToLong()) return new Value(node.longValue());
        return new Value(node.doubleValue());
      }
      default -> {
        return new Value();
      }
    }
  }

  /**
   * The context's entries but its targeting key, as evaluate-ab's attributes: plain JSON values,
   * dates as ISO-8601 text.
   */
  static Map<String, Object> attributes(EvaluationContext context) {
    Map<String, Object> attributes = new LinkedHashMap<>();
    for (String key : context.keySet()) {
      if (!key.equals(EvaluationContext.TARGETING_KEY)) attributes.put(key, plain(context.getValue(key)));
    }
    return attributes;
  }

  private static Object plain(Value value) {
    if (value == null || value.isNull()) return null;
    if (value.isInstant()) return value.asInstant().toString();
    if (value.isList()) {
      List<Object> items = new ArrayList<>();
      for (Value item : value.asList()) items.add(plain(item));
      return items;
    }
    if (value.isStructure()) {
      Map<String, Object> fields = new LinkedHashMap<>();
      value.asStructure().asMap().forEach((key, item) -> fields.put(key, plain(item)));
      return fields;
    }
    // A boolean, string or number.
    return value.asObject();
  }
}
