/**
 * The recent diffs of one view, as the bytes that were sent, for `Last-Event-ID` replay.
 * Bounded by a number of diffs and a byte budget; the oldest are evicted first.
 */

export interface HistoryLimits {
  /** Diffs kept per view. */
  maxEntries: number;
  /** Bytes kept per view (the newest diff is kept even when it alone is larger). */
  maxBytes: number;
}

interface Entry {
  revision: number;
  frames: Buffer;
  /** SSE events in `frames`. */
  events: number;
}

/** What a reconnecting stream missed. */
export interface Replay {
  frames: Buffer[];
  events: number;
}

export class ViewHistory {
  private readonly entries: Entry[] = [];
  private bytes = 0;

  /**
   * @param base the revision this history starts from: every diff after it is held (until
   *   evicted). A stream that is at `base`, or at the revision of any held diff, can be replayed.
   */
  constructor(
    private base: number,
    private readonly limits: HistoryLimits,
  ) {}

  /** The newest revision this history knows of. */
  get head(): number {
    return this.entries.at(-1)?.revision ?? this.base;
  }

  get size(): number {
    return this.entries.length;
  }

  /** Appends a diff; a revision not after the head is ignored (already seen). */
  append(revision: number, frames: Buffer, events: number): void {
    if (revision <= this.head) return;
    this.entries.push({ revision, frames, events });
    this.bytes += frames.length;
    while (
      this.entries.length > 1 &&
      (this.entries.length > this.limits.maxEntries || this.bytes > this.limits.maxBytes)
    ) {
      const evicted = this.entries.shift()!;
      this.bytes -= evicted.frames.length;
      this.base = evicted.revision;
    }
  }

  /**
   * The frames of every diff after `lastEventId`, oldest first; undefined when the history
   * cannot tell: the id is older than what is held, or not a revision this history went through.
   */
  since(lastEventId: number): Replay | undefined {
    if (lastEventId === this.head) return { frames: [], events: 0 };
    if (lastEventId < this.base || lastEventId > this.head) return undefined;
    let start = lastEventId === this.base ? 0 : -1;
    if (start === -1) {
      // Diffs are cumulative per view: replaying from a revision this view never had could miss
      // an item that changed there and back. Only the exact revisions of this history qualify.
      const index = this.entries.findIndex((e) => e.revision === lastEventId);
      if (index === -1) return undefined;
      start = index + 1;
    }
    const missed = this.entries.slice(start);
    return {
      frames: missed.map((e) => e.frames),
      events: missed.reduce((n, e) => n + e.events, 0),
    };
  }
}
