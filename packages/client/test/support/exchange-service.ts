/**
 * A stand-in for the api's side of workload identity, on a real socket: the exchange
 * (`POST /acme/v1/auth/token`, per the contract) minting checksummed keys that expire, and
 * `/v1/sync` and `/v1/stream` accepting only live keys — a stream closes when its key expires,
 * as the api's do, and resumes from `Last-Event-ID`. The platforms' token sources are the
 * testkit's identity stand-ins.
 *
 * For the timings a real api cannot be made to produce on demand: keys living a second or two,
 * exchanges failing on cue. The end-to-end tests run the same flows against the real api.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BASE62_ALPHABET, formatApiKey } from '@svc/domain';

export interface ExchangeBody {
  identity_id?: unknown;
  token?: unknown;
  aws?: { method?: unknown; url?: unknown; headers?: Record<string, string>; body?: unknown };
}

/** What the exchange answers: a key, or an error (`status`, `code`, `detail`, `retryAfter`). */
export type Verdict =
  { ok: true } | { ok: false; status: number; code: string; detail?: string; retryAfter?: number };

interface Change {
  revision: number;
  key: string;
  value: unknown;
}

interface OpenStream {
  response: ServerResponse;
  apiKey: string;
}

export class ExchangeService {
  readonly identityId = 'id-0f8c7a52';
  /** Lifetime of minted keys, in seconds (the real api's minimum is 60: here it is shorter). */
  ttlSeconds = 2;
  /** Decides each exchange; the default accepts every body for {@link identityId}. */
  verify: (body: ExchangeBody) => Verdict | Promise<Verdict> = () => ({ ok: true });
  /** Every exchange body received, in order, and when (`Date.now()`). */
  readonly exchanges: ExchangeBody[] = [];
  readonly exchangedAt: number[] = [];
  /** The key each sync and stream request carried, in order. */
  readonly keysSeen: { path: string; apiKey: string; lastEventId?: string }[] = [];
  /** Sync and stream requests answered 401. */
  refused = 0;

  readonly #keys = new Map<string, number>();
  readonly #changes: Change[] = [];
  readonly #configs = new Map<string, unknown>();
  readonly #streams = new Set<OpenStream>();
  #revision = 1;
  readonly #server = createServer((req, res) => void this.#handle(req, res));
  #port = 0;

  async start(): Promise<this> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    this.#port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  get baseUrl(): string {
    return `${this.origin}/acme`;
  }

  /** Keys minted so far, oldest first. */
  get minted(): string[] {
    return [...this.#keys.keys()];
  }

  get openStreams(): number {
    return this.#streams.size;
  }

  /** Sets a config: a new revision, pushed to every open stream. */
  set(key: string, value: unknown): number {
    const change = { revision: ++this.#revision, key, value };
    this.#changes.push(change);
    this.#configs.set(key, value);
    for (const stream of this.#streams) this.#send(stream, change);
    return change.revision;
  }

  /** Every key minted so far stops working (the identity was changed): streams close. */
  revokeAll(): void {
    for (const key of this.#keys.keys()) this.#keys.set(key, 0);
    for (const stream of this.#streams) stream.response.end();
    this.#streams.clear();
  }

  async stop(): Promise<void> {
    for (const stream of this.#streams) stream.response.destroy();
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').replace(/^\/acme/, '');
    if (path === '/v1/auth/token' && req.method === 'POST') return this.#exchange(req, res);
    const apiKey = String(req.headers['x-service-api-key'] ?? '');
    const lastEventId = req.headers['last-event-id'] as string | undefined;
    this.keysSeen.push({ path, apiKey, lastEventId });
    if (!this.#live(apiKey)) {
      this.refused++;
      return problem(res, 401, 'unauthorized', 'the key is not valid');
    }
    if (path === '/v1/sync') {
      return json(res, 200, {
        revision: this.#revision,
        key_type: 'sk',
        configs: Object.fromEntries(this.#configs),
        flags: {},
        secrets: {},
      });
    }
    if (path === '/v1/stream') return this.#stream(res, apiKey, Number(lastEventId ?? 0));
    return problem(res, 404, 'not_found');
  }

  #live(apiKey: string): boolean {
    return (this.#keys.get(apiKey) ?? 0) > Date.now();
  }

  async #exchange(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: ExchangeBody;
    try {
      body = JSON.parse(await text(req)) as ExchangeBody;
    } catch {
      return problem(res, 400, 'invalid_request', 'the body is not JSON');
    }
    this.exchanges.push(body);
    this.exchangedAt.push(Date.now());
    if (body.identity_id !== this.identityId) {
      return problem(res, 401, 'unauthorized', 'identity');
    }
    const verdict = await this.verify(body);
    if (!verdict.ok) {
      const headers: Record<string, string> =
        verdict.retryAfter === undefined ? {} : { 'retry-after': `${verdict.retryAfter}` };
      return problem(res, verdict.status, verdict.code, verdict.detail, headers);
    }
    const random = [...randomBytes(34)].map((b) => BASE62_ALPHABET[b % 62]).join('');
    const key = formatApiKey('secret', random);
    const expiresAt = Date.now() + this.ttlSeconds * 1000;
    this.#keys.set(key, expiresAt);
    json(res, 200, {
      key,
      kind: 'secret',
      expires_at: new Date(expiresAt).toISOString(),
      expires_in: this.ttlSeconds,
    });
  }

  /** Replays the changes after `after`, then pushes new ones until the key expires. */
  #stream(res: ServerResponse, apiKey: string, after: number): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write('retry: 1000\n\n');
    const stream = { response: res, apiKey };
    for (const change of this.#changes) if (change.revision > after) this.#send(stream, change);
    this.#streams.add(stream);
    const expiry = setTimeout(
      () => {
        this.#streams.delete(stream);
        res.end();
      },
      this.#keys.get(apiKey)! - Date.now(),
    );
    res.on('close', () => {
      clearTimeout(expiry);
      this.#streams.delete(stream);
    });
  }

  #send(stream: OpenStream, change: Change): void {
    const data = {
      revision: change.revision,
      kind: 'config',
      key: change.key,
      op: 'upsert',
      value: change.value,
    };
    stream.response.write(
      `event: change\nid: ${change.revision}\ndata: ${JSON.stringify(data)}\n\n`,
    );
  }
}

async function text(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function problem(
  res: ServerResponse,
  status: number,
  code: string,
  detail?: string,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, { 'content-type': 'application/problem+json', ...headers })
    .end(JSON.stringify({ type: `urn:svc:problem:${code}`, title: code, status, code, detail }));
}
