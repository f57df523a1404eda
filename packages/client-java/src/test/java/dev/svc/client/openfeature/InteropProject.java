package dev.svc.client.openfeature;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.svc.client.live.LiveServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

/**
 * The project the OpenFeature tests evaluate, as the other languages' interop tests have it:
 * five flags (a rule, a rollout, both, always on, off) and typed configs, and a secret.
 */
final class InteropProject {
  static final List<String> FLAGS = List.of("pro.only", "half", "de.blocked", "everyone", "switched.off");
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private InteropProject() {}

  /** Creates workspace {@code ws} with the project {@code web}; returns the project's admin path. */
  static String create(LiveServer live, String ws, String name) throws IOException, InterruptedException {
    String p = "/workspaces/" + ws + "/projects/web";
    live.admin("POST", "/workspaces", Map.of("slug", ws, "name", name));
    live.admin("POST", "/workspaces/" + ws + "/projects", Map.of("slug", "web", "name", "Web"));
    live.admin("PATCH", p, Map.of("ab_testing", true));
    live.admin("PUT", p + "/flags/pro.only", Map.of("is_active", true, "rollout_percentage", 0, "rules", List.of(rule("plan", "pro", true))));
    live.admin("PUT", p + "/flags/half", Map.of("is_active", true, "rollout_percentage", 50));
    live.admin("PUT", p + "/flags/de.blocked", Map.of("is_active", true, "rollout_percentage", 40, "rules", List.of(rule("country", "DE", false))));
    live.admin("PUT", p + "/flags/everyone", Map.of("is_active", true));
    live.admin("PUT", p + "/flags/switched.off", Map.of("is_active", false));
    live.admin("PUT", p + "/configs/ui.theme", Map.of("value", "dark", "is_public", true));
    live.admin("PUT", p + "/configs/limits.rps", Map.of("value", 40, "is_public", true));
    live.admin("PUT", p + "/configs/ratio", Map.of("value", 0.25, "is_public", true));
    live.admin("PUT", p + "/configs/db.pool", Map.of("value", Map.of("max", 10, "hosts", List.of("a", "b")), "is_public", false));
    live.admin("PUT", p + "/secrets/stripe.key", Map.of("value", "sk_live_interop_java_6613"));
    return p;
  }

  private static Map<String, Object> rule(String attribute, String value, boolean result) {
    return Map.of(
        "conditions", List.of(Map.of("attribute", attribute, "operator", "eq", "values", List.of(value))),
        "result", result);
  }

  /** {@code POST /v1/flags/evaluate-ab} straight to the api with {@code key}. */
  static HttpResponse<String> evaluateAb(LiveServer live, String ws, String key, List<String> flags, String user, Map<String, Object> attributes)
      throws IOException, InterruptedException {
    Map<String, Object> body = Map.of("flags", flags, "user_id", user, "attributes", attributes);
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(live.apiUrl() + "/" + ws + "/v1/flags/evaluate-ab"))
            .header("X-Service-API-Key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(body)))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
