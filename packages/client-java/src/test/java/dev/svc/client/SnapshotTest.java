package dev.svc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotTest {
  private static JsonNode json(String text) throws Exception {
    return Json.MAPPER.readTree(text);
  }

  private static final String BODY =
      "{\"revision\":42,\"key_type\":\"sk\",\"configs\":{\"db.pool\":{\"max\":10},\"ui.theme\":\"dark\",\"nothing\":null},"
          + "\"flags\":{\"checkout.v2\":true},"
          + "\"secrets\":{\"stripe.api_key\":{\"value\":\"sk_live_x\",\"type\":\"text\",\"version\":3},"
          + "\"tls.cert\":{\"value\":\"PEM\",\"type\":\"file\",\"version\":1,\"file_name\":\"tls.pem\"}}}";

  @Test
  void readsTheContractsSyncBody() throws Exception {
    Snapshot s = Snapshot.parse(json(BODY));
    assertThat(s.revision()).isEqualTo(42);
    assertThat(s.configs().get("db.pool")).isEqualTo(json("{\"max\":10}"));
    assertThat(s.configs().get("nothing").isNull()).isTrue();
    assertThat(s.flags()).containsEntry("checkout.v2", true);
    assertThat(s.secrets().get("stripe.api_key")).isEqualTo(new SecretEntry("sk_live_x", "text", 3, null));
    assertThat(s.secrets().get("tls.cert")).isEqualTo(new SecretEntry("PEM", "file", 1, "tls.pem"));
  }

  @Test
  void aPublicKeysBodyHasNoSecrets() throws Exception {
    Snapshot s = Snapshot.parse(json("{\"revision\":1,\"configs\":{},\"flags\":{}}"));
    assertThat(s.secrets()).isEmpty();
  }

  @Test
  void rejectsBodiesOutsideTheContract() {
    for (String body :
        List.of(
            "[]",
            "{\"configs\":{},\"flags\":{}}",
            "{\"revision\":\"1\",\"configs\":{},\"flags\":{}}",
            "{\"revision\":1,\"configs\":[],\"flags\":{}}",
            "{\"revision\":1,\"configs\":{},\"flags\":{\"a\":1}}",
            "{\"revision\":1,\"configs\":{},\"flags\":{},\"secrets\":{\"a\":{\"value\":1,\"type\":\"text\",\"version\":1}}}",
            "{\"revision\":1,\"configs\":{},\"flags\":{},\"secrets\":{\"a\":{\"value\":\"v\",\"type\":\"blob\",\"version\":1}}}")) {
      assertThatThrownBy(() -> Snapshot.parse(json(body)))
          .as(body)
          .isExactlyInstanceOf(ServiceException.class)
          .hasMessageContaining("does not follow the contract");
    }
  }

  @Test
  void appliesChangesIntoANewSnapshot() throws Exception {
    Snapshot before = Snapshot.parse(json(BODY));
    Snapshot after =
        before.apply(
            List.of(
                Snapshot.parseChange("{\"revision\":43,\"kind\":\"flag\",\"key\":\"checkout.v2\",\"op\":\"upsert\",\"value\":false}"),
                Snapshot.parseChange("{\"revision\":43,\"kind\":\"config\",\"key\":\"ui.theme\",\"op\":\"delete\"}"),
                Snapshot.parseChange(
                    "{\"revision\":44,\"kind\":\"secret\",\"key\":\"tls.cert\",\"op\":\"upsert\",\"value\":\"PEM2\",\"type\":\"file\",\"version\":2,\"file_name\":\"tls.pem\"}")));
    assertThat(after.revision()).isEqualTo(44);
    assertThat(after.flags()).containsEntry("checkout.v2", false);
    assertThat(after.configs()).doesNotContainKey("ui.theme").containsKey("db.pool");
    assertThat(after.secrets().get("tls.cert").value()).isEqualTo("PEM2");
    // The old snapshot is untouched: readers holding it see a consistent view.
    assertThat(before.flags()).containsEntry("checkout.v2", true);
    assertThat(before.configs()).containsKey("ui.theme");
    // Untouched maps are shared, not copied.
    assertThat(before.apply(List.of(Snapshot.parseChange("{\"revision\":45,\"kind\":\"flag\",\"key\":\"x\",\"op\":\"upsert\",\"value\":true}"))).secrets())
        .isSameAs(before.secrets());
  }

  @Test
  void rejectsMalformedChanges() {
    for (String data :
        List.of(
            "not json",
            "[]",
            "{\"revision\":1,\"kind\":\"other\",\"key\":\"a\",\"op\":\"upsert\",\"value\":1}",
            "{\"revision\":1,\"kind\":\"flag\",\"key\":\"a\",\"op\":\"upsert\",\"value\":1}",
            "{\"revision\":1,\"kind\":\"config\",\"key\":\"a\",\"op\":\"upsert\"}",
            "{\"revision\":1,\"kind\":\"config\",\"key\":\"a\",\"op\":\"merge\",\"value\":1}")) {
      assertThatThrownBy(() -> Snapshot.parseChange(data)).as(data).isExactlyInstanceOf(ServiceException.class);
    }
  }

  @Test
  void diffNamesWhatDiffersByContent() throws Exception {
    Snapshot before = Snapshot.parse(json(BODY));
    Snapshot after =
        Snapshot.parse(
            json(
                "{\"revision\":43,\"configs\":{\"db.pool\":{\"max\":10},\"ui.theme\":\"light\",\"nothing\":null},"
                    + "\"flags\":{\"checkout.v2\":true,\"new\":false},"
                    + "\"secrets\":{\"stripe.api_key\":{\"value\":\"sk_live_y\",\"type\":\"text\",\"version\":4},"
                    + "\"tls.cert\":{\"value\":\"PEM\",\"type\":\"file\",\"version\":1,\"file_name\":\"tls.pem\"}}}"));
    assertThat(Snapshot.diff(before, after))
        .containsExactly(
            new Change("config", "ui.theme", "upsert"),
            new Change("flag", "new", "upsert"),
            new Change("secret", "stripe.api_key", "upsert"));
    assertThat(Snapshot.diff(after, Snapshot.EMPTY)).hasSize(7).allMatch(Change::isDelete);
    assertThat(Snapshot.diff(before, before)).isEmpty();
  }
}
