/**
 * Reconnection delays of the stream: 1 s doubling to 30 s, with jitter, back to the start once a
 * connection has lasted a minute (the contract's numbers are the defaults).
 */
export interface BackoffOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  resetAfterMs: number;
}

export class Backoff {
  readonly #options: BackoffOptions;
  readonly #random: () => number;
  #attempts = 0;

  constructor(options: BackoffOptions, random: () => number = Math.random) {
    this.#options = options;
    this.#random = random;
  }

  /**
   * The delay before the next attempt: half of the doubled delay plus a random share of the other
   * half ("equal jitter"), so many clients that lost one server do not return in step.
   */
  next(): number {
    const { initialDelayMs, maxDelayMs } = this.#options;
    // Past 2 ** 1023 the doubling is Infinity: still capped.
    const base = Math.min(maxDelayMs, initialDelayMs * 2 ** this.#attempts++);
    return Math.round((base * (1 + this.#random())) / 2);
  }

  /** A connection lasted `connectedMs`: long enough, and the delays start over. */
  connectionEnded(connectedMs: number): void {
    if (connectedMs >= this.#options.resetAfterMs) this.#attempts = 0;
  }

  reset(): void {
    this.#attempts = 0;
  }
}
