package dev.svc.client;

import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The client's {@link ServiceStatus}, which the sync and the stream both change: one change at a
 * time, and the listeners told only when something in it did change.
 */
final class StatusTracker {
  private final Listeners<ServiceStatus> listeners;
  private final Object lock = new Object();
  /** Replaced (under lock) whenever something in it changes. */
  private volatile ServiceStatus status = ServiceStatus.INITIAL;

  StatusTracker(ServiceLogger logger) {
    this.listeners = new Listeners<>(logger);
  }

  ServiceStatus current() {
    return status;
  }

  ServiceClient.Subscription addListener(Consumer<? super ServiceStatus> listener) {
    return listeners.add(listener);
  }

  /** Replaces the status by {@code change}'s and tells the listeners, unless nothing changed. */
  void update(UnaryOperator<ServiceStatus> change) {
    ServiceStatus next;
    synchronized (lock) {
      next = change.apply(status);
      if (next.equals(status)) return;
      status = next;
    }
    listeners.notify(next);
  }

  /** At close: nobody is told anything more. */
  void clearListeners() {
    listeners.clear();
  }
}
