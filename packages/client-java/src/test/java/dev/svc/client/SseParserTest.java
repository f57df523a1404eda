package dev.svc.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {
  private final List<SseEvent> events = new ArrayList<>();
  private final SseParser parser = new SseParser(events::add);

  @Test
  void readsTheServersFrames() {
    parser.feed(
        "retry: 1000\n\n"
            + "event: resync\ndata: {\"revision\":3}\n\n"
            + ": keep-alive\n\n"
            + "event: change\nid: 4\ndata: {\"revision\":4,\"kind\":\"flag\"}\n\n");
    assertThat(parser.retryMs()).isEqualTo(1000);
    assertThat(events)
        .containsExactly(
            new SseEvent("resync", "{\"revision\":3}", ""),
            new SseEvent("change", "{\"revision\":4,\"kind\":\"flag\"}", "4"));
    assertThat(parser.lastEventId()).isEqualTo("4");
  }

  @Test
  void joinsDataLinesAndDefaultsTheEventType() {
    parser.feed("data: one\ndata:two\ndata\n\n");
    assertThat(events).containsExactly(new SseEvent("message", "one\ntwo\n", ""));
  }

  @Test
  void acceptsCrLfAndCrLineEndsAcrossChunks() {
    parser.feed("event: a\r");
    parser.feed("\ndata: 1\r");
    parser.feed("\r");
    parser.feed("event: b\rdata: 2\r\r\n");
    assertThat(events).containsExactly(new SseEvent("a", "1", ""), new SseEvent("b", "2", ""));
  }

  @Test
  void waitsForTheBlankLineAndDropsEventsWithoutData() {
    parser.feed("event: resync\n\nevent: change\ndata: x");
    assertThat(events).isEmpty();
    parser.feed("\n");
    assertThat(events).isEmpty();
    parser.feed("\n");
    assertThat(events).containsExactly(new SseEvent("change", "x", ""));
  }

  @Test
  void ignoresCommentsUnknownFieldsBadRetryAndIdsWithNul() {
    parser.feed(": hello\nfoo: bar\nretry: 1x\nid: a\u0000b\ndata: d\n\n");
    assertThat(parser.retryMs()).isEqualTo(-1);
    assertThat(events).containsExactly(new SseEvent("message", "d", ""));
  }

  @Test
  void onlyOneLeadingSpaceIsStripped() {
    parser.feed("data:  two spaces\n\n");
    assertThat(events.get(0).data()).isEqualTo(" two spaces");
  }

  @Test
  void decodesUtf8SplitAcrossChunksAndSkipsTheBom() {
    byte[] bytes = "\uFEFFdata: grüße ✓\n\n".getBytes(StandardCharsets.UTF_8);
    // Feed one byte at a time: every multi-byte sequence is split.
    for (byte b : bytes) parser.feed(ByteBuffer.wrap(new byte[] {b}));
    assertThat(events).containsExactly(new SseEvent("message", "grüße ✓", ""));
  }

  @Test
  void theIdStaysForLaterEvents() {
    parser.feed("id: 7\ndata: a\n\ndata: b\n\n");
    assertThat(events).extracting(SseEvent::id).containsExactly("7", "7");
  }
}
