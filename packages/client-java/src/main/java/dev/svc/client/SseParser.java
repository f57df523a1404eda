package dev.svc.client;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * A server-sent-event parser after the WHATWG "event stream interpretation": UTF-8 bytes in any
 * chunking, lines ended by CR, LF or CRLF, {@code :} comments, {@code event}, {@code data},
 * {@code id} and {@code retry} fields, an event dispatched at each blank line (none when it has
 * no data). Not thread-safe: one parser per connection.
 */
final class SseParser {
  private final Consumer<SseEvent> onEvent;
  private final CharsetDecoder decoder =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE);
  private final StringBuilder line = new StringBuilder();
  private final StringBuilder data = new StringBuilder();
  private ByteBuffer pendingBytes = ByteBuffer.allocate(0);
  private String eventType = "";
  private String lastEventId = "";
  private long retryMs = -1;
  private boolean hasData;
  private boolean started;
  private boolean afterCr;

  SseParser(Consumer<SseEvent> onEvent) {
    this.onEvent = onEvent;
  }

  /** The last {@code retry:} value in milliseconds, or -1 when none came. */
  long retryMs() {
    return retryMs;
  }

  /** The last event id of the stream (empty when none). */
  String lastEventId() {
    return lastEventId;
  }

  /** Feeds raw bytes; a UTF-8 sequence split across chunks is decoded once complete. */
  void feed(ByteBuffer bytes) {
    ByteBuffer input = bytes;
    if (pendingBytes.hasRemaining()) {
      input = ByteBuffer.allocate(pendingBytes.remaining() + bytes.remaining());
      input.put(pendingBytes).put(bytes).flip();
    }
    CharBuffer chars = CharBuffer.allocate((int) (input.remaining() * 1.1) + 4);
    decoder.decode(input, chars, false);
    chars.flip();
    pendingBytes = input.hasRemaining() ? copy(input) : ByteBuffer.allocate(0);
    feed(chars);
  }

  /** Feeds decoded text. */
  void feed(CharSequence text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!started) {
        started = true;
        if (c == '\uFEFF') continue;
      }
      if (afterCr) {
        afterCr = false;
        if (c == '\n') continue;
      }
      if (c == '\r') {
        afterCr = true;
        endLine();
      } else if (c == '\n') {
        endLine();
      } else {
        line.append(c);
      }
    }
  }

  private void endLine() {
    String text = line.toString();
    line.setLength(0);
    if (text.isEmpty()) {
      dispatch();
      return;
    }
    if (text.charAt(0) == ':') return;
    int colon = text.indexOf(':');
    String field = colon < 0 ? text : text.substring(0, colon);
    String value = "";
    if (colon >= 0) {
      int start = colon + 1;
      if (start < text.length() && text.charAt(start) == ' ') start++;
      value = text.substring(start);
    }
    switch (field) {
      case "event" -> eventType = value;
      case "data" -> {
        if (hasData) data.append('\n');
        data.append(value);
        hasData = true;
      }
      case "id" -> {
        if (value.indexOf('\0') < 0) lastEventId = value;
      }
      case "retry" -> {
        if (!value.isEmpty() && value.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
          try {
            retryMs = Long.parseLong(value);
          } catch (NumberFormatException tooLong) {
            // ignored, as the standard says for a value that is not a number
          }
        }
      }
      default -> {
        // unknown fields are ignored
      }
    }
  }

  private void dispatch() {
    if (!hasData) {
      eventType = "";
      return;
    }
    SseEvent event = new SseEvent(eventType.isEmpty() ? "message" : eventType, data.toString(), lastEventId);
    data.setLength(0);
    hasData = false;
    eventType = "";
    onEvent.accept(event);
  }

  private static ByteBuffer copy(ByteBuffer rest) {
    ByteBuffer out = ByteBuffer.allocate(rest.remaining());
    out.put(rest).flip();
    return out;
  }
}
