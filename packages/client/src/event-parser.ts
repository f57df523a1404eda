/**
 * The `text/event-stream` format, read from text chunks split anywhere (the WHATWG HTML
 * standard's "event stream interpretation"). Small on purpose: the browser entry's byte budget
 * is 6 KiB with React bindings, and eventsource-parser alone would take a quarter of it; the
 * tests check this parser against eventsource-parser on the same bytes.
 */

/** One event of the stream: its type (`undefined` when the frame named none) and data. */
export interface StreamEvent {
  event: string | undefined;
  data: string;
}

/** Far above any event of the contract (a file secret is at most 1 MiB): a stuck server. */
const MAX_EVENT_CHARS = 8 * 1024 * 1024;

/**
 * A parser that calls `onEvent` for each complete event of the chunks it is fed. `data` lines
 * join with "\n"; a blank line ends an event, which is dispatched only when it had data;
 * comments (`: keep-alive`), `id`, `retry` and unknown fields are ignored (the client resumes
 * by revision and keeps its own reconnect delays). Throws when one event grows past 8 Mi
 * characters.
 */
export function createEventParser(onEvent: (event: StreamEvent) => void): (chunk: string) => void {
  let pending = '';
  let type: string | undefined;
  let data: string[] = [];
  let size = 0;
  return (chunk) => {
    const text = pending + chunk;
    // A CR that ends the text may be the first half of a CRLF: keep it for the next chunk.
    const held = text.endsWith('\r') ? 1 : 0;
    const lines = text.slice(0, text.length - held).split(/\r\n|\r|\n/);
    pending = lines.pop()! + text.slice(text.length - held);
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) onEvent({ event: type, data: data.join('\n') });
        type = undefined;
        data = [];
        size = 0;
      } else {
        // `field: value`, `field:value` or a bare `field`; a comment has an empty field name.
        const [, field, value] = /^([^:]*):? ?(.*)$/s.exec(line)!;
        if (field === 'event') type = value || undefined;
        if (field === 'data') {
          data.push(value!);
          size += value!.length;
        }
      }
    }
    if (size + pending.length > MAX_EVENT_CHARS)
      throw new Error('stream: an event over 8 Mi characters');
  };
}
