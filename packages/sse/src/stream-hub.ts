/**
 * The stream hub: every open `GET /v1/stream` response, grouped by view. A view's diff is
 * encoded once and the same Buffer is written to each of its streams; one shared timer sends
 * keep-alives and another closes streams past their age. A client that stops reading is dropped
 * once its buffered bytes pass a bound, so it never costs memory or time of the others.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AppliedChanges, View } from '@svc/domain';
import { corsHeaders, problem, writeProblem } from '@svc/http';
import { changeFrames, httpChunk, KEEP_ALIVE, resyncFrame, retryFrame } from './frames.ts';
import { ViewHistory, type HistoryLimits } from './view-history.ts';

/** The metrics the hub reports (prom-client gauges and counters fit). */
export interface StreamMetrics {
  streamsOpen: { inc(): void; dec(): void };
  streamEvents: { inc(value: number): void };
  slowStreamsDropped: { inc(): void };
}

export interface StreamHubOptions {
  /** A stream is closed cleanly after this age (`STREAM_MAX_AGE_S` × 1000), ± `maxAgeJitter`. */
  maxAgeMs: number;
  /** Fraction of `maxAgeMs` by which each stream's age is varied at random (default 0.1). */
  maxAgeJitter?: number;
  /** Interval of the `: keep-alive` comment (default 15 s). */
  keepAliveMs?: number;
  /** A stream whose unsent bytes pass this is dropped (default 1 MiB). */
  maxBufferedBytes?: number;
  /** The `retry:` hint (default 1000 ms). */
  retryMs?: number;
  /** Replay history per view (default 256 diffs, 1 MiB). */
  history?: Partial<HistoryLimits>;
  /** A view's history is forgotten once it has had no stream for this long (default 10 min). */
  historyIdleMs?: number;
  metrics?: StreamMetrics;
  /** For tests: the clock and the source of jitter. */
  now?: () => number;
  random?: () => number;
}

/** What a new stream follows. */
export interface StreamSubscription {
  /** The caller's view, current at the time of the request. */
  view: View;
  /** The API key, so that revoking it closes the stream. */
  keyId: string;
  /** The `Last-Event-ID` the client reconnected with, if any. */
  lastEventId?: number;
}

interface Stream {
  readonly res: ServerResponse;
  /**
   * The connection, when the response owns it and is chunked (HTTP/1.1): later frames go to it
   * as ready-made chunks, one write each. Otherwise (HTTP/1.0, a pipelined response waiting for
   * its turn) they go through `res.write`.
   */
  socket: Socket | null;
  readonly viewId: string;
  readonly keyId: string;
  readonly expiresAt: number;
  open: boolean;
}

interface ViewStreams {
  streams: Set<Stream>;
  history: ViewHistory;
  /** When the last stream left (0 while there are streams). */
  idleSince: number;
}

/** As better-sse sends them, plus CORS for browsers. */
const STREAM_HEADERS = {
  ...corsHeaders,
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

const KEEP_ALIVE_CHUNK = httpChunk(KEEP_ALIVE);

export class StreamHub {
  private readonly views = new Map<string, ViewStreams>();
  private readonly byKey = new Map<string, Set<Stream>>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly retry: Buffer;
  private readonly limits: HistoryLimits;
  private readonly maxBufferedBytes: number;
  private readonly now: () => number;
  private readonly random: () => number;
  private count = 0;
  private closed = false;

  constructor(private readonly options: StreamHubOptions) {
    this.retry = retryFrame(options.retryMs ?? 1000);
    this.limits = {
      maxEntries: options.history?.maxEntries ?? 256,
      maxBytes: options.history?.maxBytes ?? 1024 * 1024,
    };
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.every(options.keepAliveMs ?? 15_000, () => this.keepAlive());
    // Ages need no finer grain than a twentieth of themselves (at most a second).
    this.every(Math.min(1000, Math.max(20, options.maxAgeMs / 20)), () => this.sweep());
  }

  /** Open streams. */
  get size(): number {
    return this.count;
  }

  /**
   * Opens a stream on `res` (headers not yet sent): `retry`, the diffs after `lastEventId` when
   * the view's history still holds them all, then `resync` with the view's revision.
   */
  open(res: ServerResponse, { view, keyId, lastEventId }: StreamSubscription): void {
    if (this.closed) {
      writeProblem(
        res,
        { ...problem('internal', 'the server is shutting down'), status: 503 },
        corsHeaders,
      );
      return;
    }
    if (res.destroyed) return;
    const entry = this.viewStreams(view);
    const jitter = (this.options.maxAgeJitter ?? 0.1) * (2 * this.random() - 1);
    const stream: Stream = {
      res,
      viewId: view.id,
      keyId,
      expiresAt: this.now() + this.options.maxAgeMs * (1 + jitter),
      open: true,
      socket: null,
    };
    entry.streams.add(stream);
    entry.idleSince = 0;
    let keyStreams = this.byKey.get(keyId);
    if (!keyStreams) this.byKey.set(keyId, (keyStreams = new Set()));
    keyStreams.add(stream);
    this.count++;
    this.options.metrics?.streamsOpen.inc();
    res.once('close', () => this.remove(stream));

    const replay = lastEventId === undefined ? undefined : entry.history.since(lastEventId);
    res.writeHead(200, STREAM_HEADERS);
    res.write(Buffer.concat([this.retry, ...(replay?.frames ?? []), resyncFrame(view.revision)]));
    // Known once the head is out: whether node frames this response in chunks on its own socket.
    stream.socket = res.chunkedEncoding && res.socket ? res.socket : null;
    this.options.metrics?.streamEvents.inc((replay?.events ?? 0) + 1);
  }

  /** Sends each view's diff to its streams and closes the streams of revoked keys. */
  publish(applied: AppliedChanges): void {
    for (const { view, changes } of applied.views) {
      if (changes.length === 0) continue;
      const entry = this.views.get(view.id);
      if (!entry) continue;
      const frames = changeFrames(view.revision, changes);
      entry.history.append(view.revision, frames, changes.length);
      if (entry.streams.size === 0) continue;
      const chunk = httpChunk(frames);
      let sent = 0;
      for (const stream of entry.streams) if (this.send(stream, frames, chunk)) sent++;
      this.options.metrics?.streamEvents.inc(changes.length * sent);
    }
    for (const keyId of applied.revokedKeyIds) {
      for (const stream of this.byKey.get(keyId) ?? []) this.end(stream);
    }
  }

  /**
   * Ends every stream cleanly and stops the timers; resolves once the responses are finished
   * (those still unfinished after `graceMs` are destroyed). Streams asked for later get a 503.
   */
  async close(graceMs = 2000): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    const responses: ServerResponse[] = [];
    for (const { streams } of this.views.values()) {
      for (const stream of streams) {
        responses.push(stream.res);
        this.end(stream);
      }
    }
    this.views.clear();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all(responses.map(finished)), late]);
    clearTimeout(timer);
    for (const res of responses) if (!res.writableFinished) res.destroy();
  }

  private viewStreams(view: View): ViewStreams {
    let entry = this.views.get(view.id);
    if (!entry) {
      entry = {
        streams: new Set(),
        history: new ViewHistory(view.revision, this.limits),
        idleSince: 0,
      };
      this.views.set(view.id, entry);
    }
    return entry;
  }

  /** Writes unless the client has stopped reading; then it is dropped instead. */
  private send(stream: Stream, frames: Buffer, chunk: Buffer): boolean {
    if (!stream.open) return false;
    // Bytes the kernel has not taken yet: a reader that keeps up has next to none.
    if (stream.res.writableLength > this.maxBufferedBytes) {
      this.options.metrics?.slowStreamsDropped.inc();
      this.remove(stream);
      stream.res.destroy();
      return false;
    }
    // Straight to the socket: `res.write` would build the chunk framing again for every stream.
    if (stream.socket) stream.socket.write(chunk);
    else stream.res.write(frames);
    return true;
  }

  /** A clean end of the response (max age, revocation, shutdown). */
  private end(stream: Stream): void {
    if (!stream.open) return;
    this.remove(stream);
    stream.res.end();
  }

  private remove(stream: Stream): void {
    if (!stream.open) return;
    stream.open = false;
    const entry = this.views.get(stream.viewId);
    if (entry) {
      entry.streams.delete(stream);
      if (entry.streams.size === 0) entry.idleSince = this.now();
    }
    const keyStreams = this.byKey.get(stream.keyId);
    keyStreams?.delete(stream);
    if (keyStreams?.size === 0) this.byKey.delete(stream.keyId);
    this.count--;
    this.options.metrics?.streamsOpen.dec();
  }

  private keepAlive(): void {
    for (const { streams } of this.views.values()) {
      for (const stream of streams) this.send(stream, KEEP_ALIVE, KEEP_ALIVE_CHUNK);
    }
  }

  /** Closes streams past their age and forgets histories of views nobody follows any more. */
  private sweep(): void {
    const now = this.now();
    const idleMs = this.options.historyIdleMs ?? 10 * 60_000;
    for (const [id, entry] of this.views) {
      if (entry.streams.size === 0 && entry.idleSince !== 0 && now - entry.idleSince > idleMs) {
        this.views.delete(id);
        continue;
      }
      for (const stream of entry.streams) {
        if (stream.expiresAt <= now) this.end(stream);
      }
    }
  }

  private every(ms: number, fn: () => void): void {
    // unref: streams never keep the process alive by themselves.
    this.timers.push(setInterval(fn, ms).unref());
  }
}

function finished(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    res.once('finish', () => resolve());
    res.once('close', () => resolve());
  });
}
