package dev.svc.client;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Reconnection delays of the stream: 1 s doubling to 30 s, with jitter, back to the start once a
 * connection has lasted a minute (the contract's numbers are the defaults). Used by the stream
 * thread only.
 */
final class Backoff {
  private final long initialMs;
  private final long maxMs;
  private final long resetAfterMs;
  private final DoubleSupplier random;
  private int attempts;

  Backoff(Duration initial, Duration max, Duration resetAfter) {
    this(initial, max, resetAfter, () -> ThreadLocalRandom.current().nextDouble());
  }

  Backoff(Duration initial, Duration max, Duration resetAfter, DoubleSupplier random) {
    this.initialMs = initial.toMillis();
    this.maxMs = max.toMillis();
    this.resetAfterMs = resetAfter.toMillis();
    this.random = random;
  }

  /**
   * The delay before the next attempt: half of the doubled delay plus a random share of the
   * other half ("equal jitter"), so that many clients that lost one server do not return in step.
   */
  long nextMs() {
    double doubled = initialMs * Math.pow(2, Math.min(attempts, 30));
    long base = (long) Math.min(maxMs, doubled);
    attempts++;
    return Math.round(base / 2.0 + random.getAsDouble() * base / 2.0);
  }

  /** A connection lasted {@code connectedMs}: long enough, and the delays start over. */
  void connectionEnded(long connectedMs) {
    if (connectedMs >= resetAfterMs) attempts = 0;
  }

  /** True when a connection that lasted {@code connectedMs} counts as a long one. */
  boolean isLong(long connectedMs) {
    return connectedMs >= resetAfterMs;
  }

  void reset() {
    attempts = 0;
  }
}
