/**
 * A test client for `text/event-stream` over a real socket: it keeps the raw bytes and parses
 * them as the EventSource spec says (fields, blank-line dispatch, comments, `retry`).
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export interface SseReader {
  status: number;
  headers: IncomingHttpHeaders;
  /** Every byte of the body received so far. */
  raw(): Buffer;
  events: SseEvent[];
  comments: string[];
  retry: number | undefined;
  /** The next event after the previous `next()` one that satisfies `match`. */
  next(match?: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the server ends the response (or the connection goes). */
  ended: Promise<'end' | 'aborted'>;
  /** Drops the connection from the client side. */
  close(): void;
}

export interface OpenStreamOptions {
  headers?: Record<string, string>;
  host?: string;
}

/** `GET path` on 127.0.0.1:port; resolves once the response head has arrived. */
export function openStream(
  port: number,
  path: string,
  options: OpenStreamOptions = {},
): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'GET',
        headers: { accept: 'text/event-stream', ...options.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        const parser = new SseParser();
        const waiters = new Set<() => void>();
        let cursor = 0;
        let done = false;
        const ended = new Promise<'end' | 'aborted'>((resolveEnd) => {
          res.on('end', () => resolveEnd('end'));
          res.on('aborted', () => resolveEnd('aborted'));
          res.on('error', () => resolveEnd('aborted'));
          res.on('close', () => resolveEnd(res.complete ? 'end' : 'aborted'));
        });
        void ended.then(() => {
          done = true;
          for (const wake of waiters) wake();
        });
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          parser.push(chunk.toString('utf8'));
          for (const wake of waiters) wake();
        });
        const reader: SseReader = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          raw: () => Buffer.concat(chunks),
          events: parser.events,
          comments: parser.comments,
          get retry() {
            return parser.retry;
          },
          next(match = () => true, timeoutMs = 2000) {
            return new Promise<SseEvent>((resolveNext, rejectNext) => {
              const check = () => {
                while (cursor < parser.events.length) {
                  const event = parser.events[cursor++]!;
                  if (match(event)) {
                    finish();
                    resolveNext(event);
                    return;
                  }
                }
                if (done) {
                  finish();
                  rejectNext(new Error(`stream ended; events: ${JSON.stringify(parser.events)}`));
                }
              };
              const timer = setTimeout(() => {
                finish();
                rejectNext(
                  new Error(
                    `no matching event within ${timeoutMs} ms; events: ${JSON.stringify(parser.events)}`,
                  ),
                );
              }, timeoutMs);
              const finish = () => {
                clearTimeout(timer);
                waiters.delete(check);
              };
              waiters.add(check);
              check();
            });
          },
          ended,
          close: () => req.destroy(),
        };
        resolve(reader);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A client that sends the request and then never reads: its socket is paused for good. */
export function openStalledStream(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<Socket & { closedByServer: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const lines = [`GET ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Accept: text/event-stream'];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      socket.pause();
      const closedByServer = new Promise<void>((r) => socket.once('close', () => r()));
      resolve(Object.assign(socket, { closedByServer }));
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

/** The EventSource parsing rules, for the subset of fields the stream uses. */
export class SseParser {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  retry: number | undefined;
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | undefined;
  private hasData = false;

  push(text: string): void {
    this.buffer += text;
    let newline: number;
    while ((newline = this.buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = this.buffer.slice(0, newline);
      const width = this.buffer.startsWith('\r\n', newline) ? 2 : 1;
      this.buffer = this.buffer.slice(newline + width);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.hasData)
        this.events.push({
          event: this.event || 'message',
          data: this.data.join('\n'),
          id: this.id,
        });
      this.event = '';
      this.data = [];
      this.hasData = false;
      return;
    }
    if (line.startsWith(':')) {
      this.comments.push(line.slice(1).trim());
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') {
      this.data.push(value);
      this.hasData = true;
    } else if (field === 'id') this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
  }
}
