package dev.svc.client;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The listeners of one kind of news (changes, or status): added and removed on any thread, and
 * called in the order they were added. One that throws is logged; the others still run.
 */
final class Listeners<T> {
  private final List<Consumer<? super T>> listeners = new CopyOnWriteArrayList<>();
  private final ServiceLogger logger;

  Listeners(ServiceLogger logger) {
    this.logger = logger;
  }

  /** Adds {@code listener}; closing the answer removes it (idempotent). */
  ServiceClient.Subscription add(Consumer<? super T> listener) {
    Objects.requireNonNull(listener, "listener");
    // A wrapper per call: the same listener added twice is removed one registration at a time.
    Consumer<? super T> entry = listener::accept;
    listeners.add(entry);
    return () -> listeners.remove(entry);
  }

  boolean isEmpty() {
    return listeners.isEmpty();
  }

  void clear() {
    listeners.clear();
  }

  void notify(T news) {
    for (Consumer<? super T> listener : listeners) {
      try {
        listener.accept(news);
      } catch (RuntimeException e) {
        logger.error("a listener threw", e);
      }
    }
  }
}
