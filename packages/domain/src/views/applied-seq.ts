/**
 * How far the read model has applied the change log, and a way to wait until it got somewhere:
 * a write answers once its own change is applied (read-your-writes), within a bound.
 */
interface Waiter {
  seq: number;
  resolve: (applied: boolean) => void;
  timer: NodeJS.Timeout;
}

export class AppliedSeq {
  private current = 0;
  private readonly waiters = new Set<Waiter>();

  get value(): number {
    return this.current;
  }

  /** Moves forward (never back) and lets every waiter up to `seq` go. */
  advance(seq: number): void {
    if (seq <= this.current) return;
    this.current = seq;
    for (const waiter of this.waiters) {
      if (waiter.seq > seq) continue;
      clearTimeout(waiter.timer);
      this.waiters.delete(waiter);
      waiter.resolve(true);
    }
  }

  /** True once `seq` is applied; false when `timeoutMs` passed first. */
  reach(seq: number, timeoutMs: number): Promise<boolean> {
    if (seq <= this.current) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        seq,
        resolve,
        // unref: a pending wait never keeps the process alive by itself.
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          resolve(false);
        }, timeoutMs).unref(),
      };
      this.waiters.add(waiter);
    });
  }
}
