package dev.svc.client;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The change stream: {@code GET /v1/stream} on a thread of its own, so the client sets its own
 * headers ({@code Last-Event-ID}) and notices silence itself. It reconnects with backoff until
 * stopped; a 401 or 404 stops it for good (until the next {@link #start()}).
 *
 * <p>The stream thread only ever waits on its inbox: the HTTP client posts the answer's head,
 * each body chunk and the body's end there, and {@link #stop()} posts a stop. So stopping needs
 * no thread interrupt (which would break file writes in progress), and silence is a poll that
 * times out.
 */
final class StreamConnection {
  /** What the stream reports to the client. Called on the stream thread. */
  interface Handlers {
    /** The revision to resume after (sent as {@code Last-Event-ID}), or empty. */
    OptionalLong resumeAfter();

    /** The events of one received chunk, in order. */
    void onEvents(List<SseEvent> events);

    /** The stream became connected (true) or stopped being connected (false). */
    void onState(boolean connected);

    /** The key was refused (401): the stream stopped. */
    default void onRefused() {}

    /** A connection failed or was refused (then {@link #onRefused()} follows a 401). */
    default void onError(RuntimeException error) {}
  }

  private enum Outcome {
    ENDED,
    ENDED_LONG,
    FATAL,
    STOPPED
  }

  private static final Object STOP = new Object();
  private static final long JOIN_TIMEOUT_MS = 10_000;

  /** One start-to-stop run of the connect loop; a restart gets a fresh one. */
  private static final class Run {
    final LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    volatile boolean active = true;
    volatile Connection connection;
    Thread thread;
  }

  /** One HTTP connection of a run. */
  private static final class Connection {
    volatile CompletableFuture<HttpResponse<Flow.Publisher<List<ByteBuffer>>>> head;
    volatile Flow.Subscription subscription;
    volatile boolean bodyTaken;
    volatile boolean cancelled;

    /** Ends the request, or the body, whichever stage the connection is in. */
    void cancel() {
      cancelled = true;
      CompletableFuture<HttpResponse<Flow.Publisher<List<ByteBuffer>>>> h = head;
      if (h != null) {
        h.cancel(true);
        // An answer that arrived but was never read (the silence limit ran out first).
        if (!bodyTaken && h.isDone() && !h.isCompletedExceptionally()) {
          bodyTaken = true;
          h.join().body().subscribe(new Cancelling());
        }
      }
      Flow.Subscription s = subscription;
      if (s != null) s.cancel();
    }

    /** The answer's body, for one subscriber. */
    Flow.Publisher<List<ByteBuffer>> takeBody(HttpResponse<Flow.Publisher<List<ByteBuffer>>> response) {
      bodyTaken = true;
      return response.body();
    }
  }

  private record Head(Connection connection, HttpResponse<Flow.Publisher<List<ByteBuffer>>> response, Throwable error) {}

  private record Chunk(Connection connection, List<ByteBuffer> data) {}

  private record End(Connection connection, Throwable error) {}

  private final Transport transport;
  private final ResolvedConfig config;
  private final Handlers handlers;
  private final Object lock = new Object();
  private Run run;

  StreamConnection(Transport transport, ResolvedConfig config, Handlers handlers) {
    this.transport = transport;
    this.config = config;
    this.handlers = handlers;
  }

  /** Starts the connect loop; does nothing when it runs already. */
  void start() {
    synchronized (lock) {
      if (run != null && run.active) return;
      Run next = new Run();
      next.thread = new Thread(() -> loop(next), "service-client-stream");
      next.thread.setDaemon(true);
      run = next;
      next.thread.start();
    }
  }

  /** Ends the connection and the loop; returns once the stream thread has finished. */
  void stop() {
    Run current;
    synchronized (lock) {
      current = run;
      if (current == null) return;
      current.active = false;
      current.inbox.offer(STOP);
      Connection connection = current.connection;
      if (connection != null) connection.cancel();
    }
    if (current.thread != Thread.currentThread()) {
      try {
        current.thread.join(JOIN_TIMEOUT_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private boolean isCurrent(Run r) {
    synchronized (lock) {
      return run == r;
    }
  }

  private void loop(Run r) {
    ServiceLogger logger = config.logger();
    // Each run starts with the initial delay again.
    Backoff backoff =
        new Backoff(config.reconnectInitialDelay(), config.reconnectMaxDelay(), config.reconnectResetAfter());
    while (r.active) {
      long delay;
      try {
        Outcome outcome = connectOnce(r, backoff);
        if (outcome == Outcome.STOPPED) break;
        if (outcome == Outcome.FATAL) {
          r.active = false;
          break;
        }
        delay = outcome == Outcome.ENDED_LONG ? 0 : backoff.nextMs();
        if (r.active) logger.info("stream ended by the server; reconnecting in " + delay + " ms");
      } catch (RuntimeException e) {
        if (!r.active) break;
        delay = backoff.nextMs();
        logger.error("stream failed, reconnecting in " + delay + " ms: " + Transport.describe(e), e);
        if (isCurrent(r)) handlers.onError(e);
      }
      if (r.active && delay > 0 && await(r, null, delay) == STOP) break;
    }
  }

  /** One connection, from request to its end. */
  private Outcome connectOnce(Run r, Backoff backoff) {
    ServiceLogger logger = config.logger();
    long silenceMs = config.streamSilenceTimeout().toMillis();
    Connection connection = new Connection();
    r.connection = connection;
    if (!r.active) return Outcome.STOPPED;

    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Accept", "text/event-stream");
    headers.put("Cache-Control", "no-cache");
    OptionalLong resumeAfter = handlers.resumeAfter();
    if (resumeAfter.isPresent()) headers.put("Last-Event-ID", Long.toString(resumeAfter.getAsLong()));

    long connectedAt = -1;
    try {
      CompletableFuture<HttpResponse<Flow.Publisher<List<ByteBuffer>>>> head = transport.openStream(headers);
      connection.head = head;
      head.whenComplete((response, error) -> r.inbox.offer(new Head(connection, response, error)));
      if (connection.cancelled) head.cancel(true);

      // The silence limit covers the answer's head too: a server that never answers is silent.
      Object message = await(r, connection, silenceMs);
      if (message == STOP) return Outcome.STOPPED;
      if (message == null) throw silence(silenceMs);
      Head answer = (Head) message;
      if (answer.error() != null) {
        throw new ServiceException("stream: " + Transport.describe(unwrap(answer.error())), unwrap(answer.error()));
      }
      HttpResponse<Flow.Publisher<List<ByteBuffer>>> response = answer.response();
      int status = response.statusCode();
      if (status < 200 || status >= 300) {
        connection.takeBody(response).subscribe(new Cancelling());
        ServiceException error =
            Transport.errorOf(status, response.headers(), new byte[0], Transport.Operation.STREAM);
        if (error instanceof ServiceUnauthorizedException || error instanceof ServiceNotFoundException) {
          logger.error("stream refused, not reconnecting: " + error.getMessage(), error);
          if (isCurrent(r)) handlers.onError(error);
          if (error instanceof ServiceUnauthorizedException) handlers.onRefused();
          return Outcome.FATAL;
        }
        throw error;
      }
      String contentType = response.headers().firstValue("Content-Type").orElse("");
      if (!contentType.startsWith("text/event-stream")) {
        connection.takeBody(response).subscribe(new Cancelling());
        throw new ServiceException("stream: unexpected content type \"" + contentType + "\"");
      }

      connectedAt = System.nanoTime();
      if (isCurrent(r)) handlers.onState(true);
      logger.info("stream connected");

      List<SseEvent> batch = new ArrayList<>();
      SseParser parser = new SseParser(batch::add);
      connection.takeBody(response).subscribe(new Forwarding(r, connection));
      for (;;) {
        message = await(r, connection, silenceMs);
        if (message == STOP) return Outcome.STOPPED;
        if (message == null) throw silence(silenceMs);
        if (message instanceof End end) {
          if (end.error() != null) {
            throw new ServiceException("stream: " + Transport.describe(unwrap(end.error())), unwrap(end.error()));
          }
          break;
        }
        for (ByteBuffer buffer : ((Chunk) message).data()) parser.feed(buffer);
        if (!batch.isEmpty() && r.active) {
          List<SseEvent> events = List.copyOf(batch);
          batch.clear();
          handlers.onEvents(events);
        }
      }
      long lasted = (System.nanoTime() - connectedAt) / 1_000_000;
      backoff.connectionEnded(lasted);
      return backoff.isLong(lasted) ? Outcome.ENDED_LONG : Outcome.ENDED;
    } catch (RuntimeException e) {
      if (connectedAt >= 0) backoff.connectionEnded((System.nanoTime() - connectedAt) / 1_000_000);
      throw e;
    } finally {
      connection.cancel();
      r.connection = null;
      if (connectedAt >= 0 && isCurrent(r)) handlers.onState(false);
    }
  }

  /**
   * The next message of {@code connection} (or a stop), waiting at most {@code timeoutMs}; null
   * when the time ran out. Messages of earlier connections are dropped.
   */
  private static Object await(Run r, Connection connection, long timeoutMs) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    for (;;) {
      long left = deadline - System.nanoTime();
      if (left <= 0) return null;
      Object message;
      try {
        message = r.inbox.poll(left, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return STOP;
      }
      if (message == null) return null;
      if (message == STOP) return STOP;
      if (connection != null && connectionOf(message) == connection) return message;
    }
  }

  private static Connection connectionOf(Object message) {
    if (message instanceof Head head) return head.connection();
    if (message instanceof Chunk chunk) return chunk.connection();
    if (message instanceof End end) return end.connection();
    return null;
  }

  private static ServiceException silence(long silenceMs) {
    return new ServiceException("stream: no data for " + silenceMs + " ms");
  }

  private static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof java.util.concurrent.CompletionException
            || e instanceof java.util.concurrent.ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** Posts the body's chunks and its end to the run's inbox. */
  private static final class Forwarding implements Flow.Subscriber<List<ByteBuffer>> {
    private final Run run;
    private final Connection connection;

    Forwarding(Run run, Connection connection) {
      this.run = run;
      this.connection = connection;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      connection.subscription = subscription;
      if (connection.cancelled) subscription.cancel();
      else subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
      run.inbox.offer(new Chunk(connection, item));
    }

    @Override
    public void onError(Throwable throwable) {
      run.inbox.offer(new End(connection, throwable));
    }

    @Override
    public void onComplete() {
      run.inbox.offer(new End(connection, null));
    }
  }

  /** Drops a body that is not read (an error answer), closing its connection. */
  private static final class Cancelling implements Flow.Subscriber<List<ByteBuffer>> {
    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      subscription.cancel();
    }

    @Override
    public void onNext(List<ByteBuffer> item) {}

    @Override
    public void onError(Throwable throwable) {}

    @Override
    public void onComplete() {}
  }
}
