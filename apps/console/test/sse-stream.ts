/** A small `text/event-stream` reader over a real socket, for the page test. */
import { request } from 'node:http';

export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export interface SseStream {
  status: number;
  events: SseEvent[];
  /** The next event after the previous `next()` one that satisfies `match`. */
  next(match?: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the response ends or the connection goes. */
  ended: Promise<void>;
  close(): void;
}

/** `GET path` on 127.0.0.1:port; resolves once the response head has arrived. */
export function openSse(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        headers: { accept: 'text/event-stream', ...headers },
        agent: false,
      },
      (res) => {
        const events: SseEvent[] = [];
        let buffer = '';
        let cursor = 0;
        let done = false;
        let wake = () => {};
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const event = parseBlock(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            if (event) events.push(event);
          }
          wake();
        });
        const ended = new Promise<void>((resolveEnd) =>
          res.on('close', () => {
            done = true;
            wake();
            resolveEnd();
          }),
        );
        resolve({
          status: res.statusCode ?? 0,
          events,
          ended,
          close: () => req.destroy(),
          async next(match = () => true, timeoutMs = 10_000) {
            const deadline = Date.now() + timeoutMs;
            for (;;) {
              while (cursor < events.length) {
                const event = events[cursor++]!;
                if (match(event)) return event;
              }
              const seen = JSON.stringify(events);
              if (done) throw new Error(`stream ended; events: ${seen}`);
              const left = deadline - Date.now();
              if (left <= 0)
                throw new Error(`no matching event in ${timeoutMs} ms; events: ${seen}`);
              await new Promise<void>((r) => {
                const timer = setTimeout(r, left);
                wake = () => {
                  clearTimeout(timer);
                  r();
                };
              });
            }
          },
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** One frame as the EventSource rules read it; undefined when it carries no data. */
function parseBlock(block: string): SseEvent | undefined {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  return data.length > 0 ? { event, data: data.join('\n'), id } : undefined;
}
