/**
 * A scripted stand-in for the service behind the client's `fetch` option: for the timing and
 * failure cases a live api cannot be made to produce on demand (silence, 429 with a given
 * Retry-After, malformed frames, exact request counts).
 */

export const SK = 'svs_8aspm4G7VmSUfOoD6V1vrORcmn0iSHkpEb0elHvN';
export const PK = 'svp_y6vK111fY0yuOhDRk1XEmSyVZEMEhEmTyI1nZ71t';
export const BASE_URL = 'http://fake.test/acme';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface SnapshotBody {
  revision: number;
  key_type: 'sk' | 'pk';
  configs: Record<string, unknown>;
  flags: Record<string, boolean>;
  secrets?: Record<
    string,
    { value: string; type: 'text' | 'file'; version: number; file_name?: string }
  >;
}

/** An open fake stream: push SSE text to the client, or end it. */
export class FakeStream {
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  readonly body: ReadableStream<Uint8Array>;
  closed = false;
  readonly request: RecordedRequest;

  constructor(request: RecordedRequest, signal: AbortSignal | undefined) {
    this.request = request;
    this.body = new ReadableStream({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => {
        this.closed = true;
      },
    });
    signal?.addEventListener('abort', () => {
      if (this.closed) return;
      this.closed = true;
      this.controller.error(signal.reason);
    });
  }

  send(text: string): void {
    if (!this.closed) this.controller.enqueue(new TextEncoder().encode(text));
  }

  event(event: string, data: unknown, id?: number): void {
    const idLine = id === undefined ? '' : `id: ${id}\n`;
    this.send(`event: ${event}\n${idLine}data: ${JSON.stringify(data)}\n\n`);
  }

  /** The server ends the response. */
  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.controller.close();
  }
}

type Responder = (request: RecordedRequest) => Response | undefined;

export class FakeService {
  snapshot: SnapshotBody = { revision: 1, key_type: 'sk', configs: {}, flags: {}, secrets: {} };
  readonly requests: RecordedRequest[] = [];
  readonly streams: FakeStream[] = [];
  /** Answers instead of the defaults when it returns a Response. */
  respond: Responder | undefined;
  /** The stream's status when not 200 (a 401 to stop reconnects, a 500 to fail). */
  streamStatus = 200;
  /** Whether new streams send `retry` and `resync` at once. */
  greet = true;

  etag(): string {
    return `"rev-${this.snapshot.revision}-${JSON.stringify(this.snapshot).length}"`;
  }

  count(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }

  get lastStream(): FakeStream {
    const stream = this.streams.at(-1);
    if (!stream) throw new Error('no stream opened');
    return stream;
  }

  readonly fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const headers = Object.fromEntries(
      Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [
        k.toLowerCase(),
        v,
      ]),
    );
    const request: RecordedRequest = {
      method: init.method ?? 'GET',
      path: url.pathname.replace(/^\/acme/, ''),
      headers,
      body: typeof init.body === 'string' ? init.body : undefined,
    };
    this.requests.push(request);
    if (init.signal?.aborted) throw init.signal.reason;
    const custom = this.respond?.(request);
    if (custom) return custom;
    if (request.path === '/v1/sync') {
      const etag = this.etag();
      if (headers['if-none-match'] === etag)
        return new Response(null, { status: 304, headers: { etag } });
      return Response.json(this.snapshot, { headers: { etag } });
    }
    if (request.path === '/v1/stream') {
      if (this.streamStatus !== 200) return problem(this.streamStatus, 'unauthorized');
      const stream = new FakeStream(request, init.signal ?? undefined);
      this.streams.push(stream);
      if (this.greet) {
        stream.send('retry: 1000\n\n');
        stream.event('resync', { revision: this.snapshot.revision });
      }
      return new Response(stream.body, { headers: { 'content-type': 'text/event-stream' } });
    }
    return problem(404, 'not_found');
  };
}

export function problem(
  status: number,
  code: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(
    JSON.stringify({
      type: `urn:svc:problem:${code}`,
      title: code,
      status,
      code,
      detail: `fake ${code}`,
    }),
    {
      status,
      headers: { 'content-type': 'application/problem+json', ...headers },
    },
  );
}

/** Logger that keeps every line, for assertions. */
export function memoryLogger() {
  const lines: { level: string; message: string; cause?: unknown }[] = [];
  return {
    lines,
    logger: {
      debug: (message: string) => lines.push({ level: 'debug', message }),
      info: (message: string) => lines.push({ level: 'info', message }),
      error: (message: string, cause?: unknown) => lines.push({ level: 'error', message, cause }),
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
