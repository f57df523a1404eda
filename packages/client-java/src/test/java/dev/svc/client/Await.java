package dev.svc.client;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds, for the tests that wait on threads and sockets. */
final class Await {
  private Await() {}

  /**
   * Returns once {@code condition} holds; an {@link AssertionError} naming {@code what} when it
   * does not within {@code timeout}.
   */
  static void until(BooleanSupplier condition, String what, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting until " + what);
      Thread.sleep(5);
    }
  }
}
