package dev.svc.client.openfeature;

import dev.svc.client.ServiceClient;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * Targeted flag evaluations through evaluate-ab, shared between threads. OpenFeature's Java
 * evaluations block, so one thread asks one flag at a time; but evaluations of the same user
 * (and the same attributes) on several threads at once share requests: the first goes out at
 * once, and those asked while it is on its way gather and go out together (up to 100 flags) as
 * soon as it returns. Ten threads asking ten flags of one user cost two round trips, not ten.
 */
final class UserEvaluations {
  /** The server's limit of flags per evaluate-ab request. */
  static final int MAX_FLAGS = 100;

  /** The flags of one request, collected until it is sent. */
  private static final class Batch {
    final Set<String> keys = new LinkedHashSet<>();
    final CompletableFuture<Map<String, Boolean>> answer = new CompletableFuture<>();
    /** The request of the same user already on its way when this batch opened, or null. */
    CompletableFuture<Map<String, Boolean>> after;
  }

  private final Supplier<ServiceClient> client;
  /** Guarded by this: per user and attributes, the batch still collecting and the one on its way. */
  private final Map<List<Object>, Batch> collecting = new HashMap<>();
  private final Map<List<Object>, Batch> sending = new HashMap<>();

  UserEvaluations(Supplier<ServiceClient> client) {
    this.client = client;
  }

  /**
   * The flag's answer for the user, as evaluate-ab gives it.
   *
   * @throws RuntimeException what {@link ServiceClient#evaluateAB} threw
   */
  boolean evaluate(String key, String userId, Map<String, Object> attributes) {
    List<Object> id = List.of(userId, attributes);
    Batch batch;
    boolean leads = false;
    synchronized (this) {
      batch = collecting.get(id);
      if (batch == null || batch.keys.size() >= MAX_FLAGS) {
        batch = new Batch();
        Batch onItsWay = sending.get(id);
        batch.after = onItsWay == null ? null : onItsWay.answer;
        collecting.put(id, batch);
        leads = true;
      }
      batch.keys.add(key);
    }
    if (leads) send(id, batch, userId, attributes);
    try {
      return Boolean.TRUE.equals(batch.answer.join().get(key));
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException cause ? cause : e;
    }
  }

  /** Sends {@code batch} once the request before it has returned (whatever it answered). */
  private void send(List<Object> id, Batch batch, String userId, Map<String, Object> attributes) {
    if (batch.after != null) batch.after.handle((answer, error) -> null).join();
    List<String> keys;
    synchronized (this) {
      if (collecting.get(id) == batch) collecting.remove(id);
      sending.put(id, batch);
      keys = List.copyOf(batch.keys);
    }
    try {
      batch.answer.complete(client.get().evaluateAB(keys, userId, attributes));
    } catch (RuntimeException e) {
      batch.answer.completeExceptionally(e);
    } finally {
      synchronized (this) {
        sending.remove(id, batch);
      }
    }
  }
}
