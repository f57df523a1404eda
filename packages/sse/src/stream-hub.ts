/**
 * The stream hub: every open stream (`GET /v1/stream`), grouped by view. A view's diff is
 * encoded once and the same Buffer is written to each of its streams; one shared timer sends
 * keep-alives and another closes streams past their age. A client that stops reading is dropped
 * once its buffered bytes pass a bound, so it never costs memory or time of the others.
 */
import type { AppliedChanges, ItemChange, View } from '@svc/domain';
import { changeFrames, KEEP_ALIVE, resyncFrame, retryFrame } from './frames.ts';
import type { StreamSink } from './stream-sink.ts';
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
  /** Open streams at most, in all (`STREAM_MAX`; default unlimited). */
  maxStreams?: number;
  /** Open streams at most per client (`STREAM_MAX_PER_CLIENT`; default unlimited). */
  maxPerClient?: number;
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
  /** When the key expires (keys minted by workload identities): the stream ends then. */
  keyExpiresAt?: number | null;
  /** Who is asking, for the per-client limit (e.g. the key and the client's address). */
  clientId?: string;
}

/** Whether one more stream may open: `full` past `maxStreams`, `client` past `maxPerClient`. */
export type Admission = 'ok' | 'full' | 'client';

/** SSE bytes and the number of events they hold. */
export interface Frames {
  frames: Buffer;
  events: number;
}

interface Stream {
  readonly sink: StreamSink;
  readonly viewId: string;
  readonly keyId: string;
  readonly clientId: string;
  readonly expiresAt: number;
  open: boolean;
}

interface ViewStreams {
  streams: Set<Stream>;
  history: ViewHistory;
  /** When the last stream left (0 while there are streams). */
  idleSince: number;
}

export class StreamHub {
  private readonly views = new Map<string, ViewStreams>();
  private readonly byKey = new Map<string, Set<Stream>>();
  private readonly perClient = new Map<string, number>();
  private readonly timers: NodeJS.Timeout[] = [];
  protected readonly retry: Buffer;
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
    // Ages need no finer grain than a twentieth of themselves; at most half a second, so that
    // a minted key's streams end within a second of its expiry.
    this.every(Math.min(500, Math.max(20, options.maxAgeMs / 20)), () => this.sweep());
  }

  /** Open streams. */
  get size(): number {
    return this.count;
  }

  /** False once `close()` has begun: a transport then answers new streams "unavailable". */
  get accepting(): boolean {
    return !this.closed;
  }

  /** Whether `clientId` may open one more stream now. */
  admit(clientId = ''): Admission {
    if (this.count >= (this.options.maxStreams ?? Infinity)) return 'full';
    if ((this.perClient.get(clientId) ?? 0) >= (this.options.maxPerClient ?? Infinity)) {
      return 'client';
    }
    return 'ok';
  }

  /**
   * Starts a stream on `sink` (the caller checked `admit` first): `retry`, the diffs after `lastEventId` when the view's history
   * still holds them all, then `resync` with the view's revision.
   */
  open(
    sink: StreamSink,
    { view, keyId, lastEventId, clientId = '', keyExpiresAt }: StreamSubscription,
  ): void {
    if (this.closed) {
      sink.destroy();
      return;
    }
    const entry = this.viewStreams(view);
    const jitter = (this.options.maxAgeJitter ?? 0.1) * (2 * this.random() - 1);
    const stream: Stream = {
      sink,
      viewId: view.id,
      keyId,
      clientId,
      // The sweep ends it at its age, or at its key's expiry when that comes first.
      expiresAt: Math.min(
        this.now() + this.options.maxAgeMs * (1 + jitter),
        keyExpiresAt ?? Infinity,
      ),
      open: true,
    };
    entry.streams.add(stream);
    entry.idleSince = 0;
    let keyStreams = this.byKey.get(keyId);
    if (!keyStreams) this.byKey.set(keyId, (keyStreams = new Set()));
    keyStreams.add(stream);
    this.perClient.set(clientId, (this.perClient.get(clientId) ?? 0) + 1);
    this.count++;
    this.options.metrics?.streamsOpen.inc();
    sink.onClose(() => this.remove(stream));

    const { frames, events } = this.opening(view, lastEventId, entry.history);
    sink.write(frames);
    this.options.metrics?.streamEvents.inc(events);
  }

  /** Sends each view's diff to its streams and closes the streams of revoked keys. */
  publish(applied: AppliedChanges): void {
    for (const { view, changes } of applied.views) {
      const entry = this.views.get(view.id);
      if (!entry) continue;
      const diff = this.diff(view, changes);
      if (!diff) continue;
      entry.history.append(view.revision, diff.frames, diff.events);
      if (entry.streams.size === 0) continue;
      let sent = 0;
      for (const stream of entry.streams) if (this.send(stream, diff.frames)) sent++;
      this.options.metrics?.streamEvents.inc(diff.events * sent);
    }
    for (const keyId of applied.revokedKeyIds) {
      for (const stream of this.byKey.get(keyId) ?? []) this.end(stream);
    }
  }

  /**
   * Ends every stream cleanly and stops the timers; resolves once the streams are finished
   * (those still unfinished after `graceMs` are dropped). Streams asked for later are refused.
   */
  async close(graceMs = 2000): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    const sinks: StreamSink[] = [];
    for (const { streams } of this.views.values()) {
      for (const stream of streams) {
        sinks.push(stream.sink);
        this.end(stream);
      }
    }
    this.views.clear();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all(sinks.map((sink) => sink.finished())), late]);
    clearTimeout(timer);
    for (const sink of sinks) sink.destroy();
  }

  /**
   * The bytes a new stream starts with: `retry`, the diffs after `lastEventId` when `history`
   * still holds them all, then `resync`. (A hub with other frames overrides this and `diff`.)
   */
  protected opening(view: View, lastEventId: number | undefined, history: ViewHistory): Frames {
    const replay = lastEventId === undefined ? undefined : history.since(lastEventId);
    return {
      frames: Buffer.concat([this.retry, ...(replay?.frames ?? []), resyncFrame(view.revision)]),
      events: (replay?.events ?? 0) + 1,
    };
  }

  /** The bytes of one view's diff, the same for each of its streams; undefined to send none. */
  protected diff(view: View, changes: readonly ItemChange[]): Frames | undefined {
    if (changes.length === 0) return undefined;
    return { frames: changeFrames(view.revision, changes), events: changes.length };
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
  private send(stream: Stream, frames: Buffer): boolean {
    if (!stream.open) return false;
    if (stream.sink.bufferedBytes > this.maxBufferedBytes) {
      this.options.metrics?.slowStreamsDropped.inc();
      this.remove(stream);
      stream.sink.destroy();
      return false;
    }
    stream.sink.write(frames);
    return true;
  }

  /** A clean end of the response (max age, revocation, shutdown). */
  private end(stream: Stream): void {
    if (!stream.open) return;
    this.remove(stream);
    stream.sink.end();
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
    const left = (this.perClient.get(stream.clientId) ?? 1) - 1;
    if (left === 0) this.perClient.delete(stream.clientId);
    else this.perClient.set(stream.clientId, left);
    this.count--;
    this.options.metrics?.streamsOpen.dec();
  }

  private keepAlive(): void {
    for (const { streams } of this.views.values()) {
      for (const stream of streams) this.send(stream, KEEP_ALIVE);
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
