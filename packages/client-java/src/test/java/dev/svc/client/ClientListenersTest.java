package dev.svc.client;

import static dev.svc.client.FakeService.send;
import static dev.svc.client.FakeService.snapshot;
import static dev.svc.client.FakeService.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Change and status listeners, against the scripted fake api: what they hear, and when. */
class ClientListenersTest extends FakeServiceCase {
  /** Frames for the open stream to write, one string per chunk. */
  private final LinkedBlockingQueue<String> frames = new LinkedBlockingQueue<>();

  /** A stream that writes whatever the test puts in {@link #frames}. */
  private void scriptedStream() {
    fake.on(
        "GET /v1/stream",
        (exchange, call) -> {
          OutputStream out = FakeService.openStream(exchange);
          out.flush();
          while (release.getCount() > 0) {
            String frame = frames.poll(50, TimeUnit.MILLISECONDS);
            if (frame != null) write(out, frame);
          }
        });
  }

  private static String change(long revision, String kind, String key, String op, String value) {
    String data =
        "{\"revision\":" + revision + ",\"kind\":\"" + kind + "\",\"key\":\"" + key + "\",\"op\":\"" + op + "\""
            + (value == null ? "" : ",\"value\":" + value) + "}";
    return "event: change\nid: " + revision + "\ndata: " + data + "\n\n";
  }

  @Test
  void streamChangesReachChangeListenersAfterTheCacheHoldsThem() throws Exception {
    fake.on("GET /v1/sync", (exchange, call) -> send(exchange, 200, "application/json", snapshot(3, "{\"a\":false}")));
    scriptedStream();
    try (ServiceClient client = ServiceClient.create(config().build())) {
      List<ChangeSet> heard = new CopyOnWriteArrayList<>();
      List<Boolean> seenInListener = new CopyOnWriteArrayList<>();
      client.addChangeListener(
          set -> {
            heard.add(set);
            seenInListener.add(client.getFlag("a"));
          });
      await(client::isStreamConnected, "connected");
      frames.add(change(4, "flag", "a", "upsert", "true") + change(4, "config", "c", "upsert", "{\"x\":1}"));
      await(() -> heard.size() == 1, "one change set");
      assertThat(heard.get(0).revision()).isEqualTo(4);
      assertThat(heard.get(0).source()).isEqualTo("stream");
      assertThat(heard.get(0).changes())
          .containsExactlyInAnyOrder(new Change("flag", "a", "upsert"), new Change("config", "c", "upsert"));
      assertThat(seenInListener).containsExactly(true);
      frames.add(change(5, "config", "c", "delete", null));
      await(() -> heard.size() == 2, "the delete");
      assertThat(heard.get(1).changes()).containsExactly(new Change("config", "c", "delete"));
      assertThat(heard.get(1).changes().get(0).isDelete()).isTrue();
    }
  }

  @Test
  void aSyncTellsWhatItsSnapshotChangedAndNothingWhenItChangedNothing() throws Exception {
    fake.on(
        "GET /v1/sync",
        (exchange, call) -> {
          String flags = switch (call) {
            case 1 -> "{\"a\":true,\"gone\":true}";
            case 2 -> "{\"a\":true,\"b\":false}";
            default -> "{\"a\":true,\"b\":false}";
          };
          send(exchange, 200, "application/json", snapshot(call == 1 ? 1 : 2, flags));
        });
    try (ServiceClient client = ServiceClient.create(config().stream(false).build())) {
      List<ChangeSet> heard = new CopyOnWriteArrayList<>();
      client.addChangeListener(heard::add);
      client.sync();
      assertThat(heard).hasSize(1);
      assertThat(heard.get(0).source()).isEqualTo("sync");
      assertThat(heard.get(0).revision()).isEqualTo(2);
      assertThat(heard.get(0).changes())
          .containsExactlyInAnyOrder(new Change("flag", "b", "upsert"), new Change("flag", "gone", "delete"));
      client.sync(); // the same content again
      assertThat(heard).hasSize(1);
    }
  }

  @Test
  void aRemovedListenerHearsNothingAndAThrowingOneDoesNotSilenceTheOthers() throws Exception {
    fake.on(
        "GET /v1/sync",
        (exchange, call) -> send(exchange, 200, "application/json", snapshot(call, "{\"n" + call + "\":true}")));
    try (ServiceClient client = ServiceClient.create(config().stream(false).build())) {
      List<ChangeSet> kept = new CopyOnWriteArrayList<>();
      List<ChangeSet> removed = new CopyOnWriteArrayList<>();
      client.addChangeListener(
          set -> {
            throw new IllegalStateException("a listener's bug");
          });
      client.addChangeListener(kept::add);
      ServiceClient.Subscription subscription = client.addChangeListener(removed::add);
      client.sync();
      subscription.close();
      subscription.close(); // idempotent
      client.sync();
      assertThat(kept).hasSize(2);
      assertThat(removed).hasSize(1);
    }
  }

  @Test
  void theStatusFollowsSyncsAndTheStream() throws Exception {
    fake.on(
        "GET /v1/sync",
        (exchange, call) -> {
          if (call == 2) send(exchange, 503, "text/plain", "busy");
          else send(exchange, 200, "application/json", snapshot(1, "{}"));
        });
    fake.on(
        "GET /v1/stream",
        (exchange, call) -> {
          if (call == 1) {
            send(exchange, 503, "text/plain", "busy");
            return;
          }
          FakeService.openStream(exchange).flush();
          release.await(10, TimeUnit.SECONDS);
        });
    try (ServiceClient client = ServiceClient.create(config().stream(false).build())) {
      ServiceStatus first = client.getStatus();
      assertThat(first.ready()).isTrue();
      assertThat(first.syncedAt()).isEqualTo(client.getSyncedAt());
      assertThat(first.error()).isNull();
      assertThat(client.getStatus()).isSameAs(first);

      List<ServiceStatus> heard = new CopyOnWriteArrayList<>();
      client.addStatusListener(heard::add);
      assertThatThrownBy(client::sync).isInstanceOf(ServiceException.class);
      ServiceStatus failed = client.getStatus();
      assertThat(failed.error()).isInstanceOf(ServiceException.class);
      assertThat(failed.ready()).isTrue();
      assertThat(failed.syncedAt()).isEqualTo(first.syncedAt());

      client.connectStream(); // a 503 first, then connected: the error clears
      await(() -> client.getStatus().streamConnected(), "connected");
      assertThat(client.getStatus().error()).isNull();
      assertThat(heard.get(heard.size() - 1)).isSameAs(client.getStatus());
      assertThat(heard).anySatisfy(s -> assertThat(s.error()).hasMessageContaining("503"));

      client.sync();
      assertThat(client.getStatus().syncedAt()).isAfter(first.syncedAt());
      client.disconnectStream();
      assertThat(client.getStatus().streamConnected()).isFalse();
      assertThat(client.getStatus().error()).isNull();
    }
  }
}
