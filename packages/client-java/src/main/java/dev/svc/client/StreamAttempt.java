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
import java.util.function.Predicate;

/**
 * One connection of the change stream, from request to its end: asks to resume after the last
 * revision, checks the answer, and hands each chunk's events to the handlers. Tells the
 * {@link StreamConnection}'s loop how it ended, which decides how soon it reconnects.
 */
final class StreamAttempt {
  /** How a connection ended. */
  enum Outcome {
    /** The server ended the body: reconnect after a backoff delay. */
    ENDED,
    /** The server ended a body that had lasted long enough: reconnect at once. */
    ENDED_LONG,
    /** Refused for good (401, 404): no reconnect. */
    FATAL,
    /** Stopped by the client. */
    STOPPED
  }

  private final Transport transport;
  private final ResolvedConfig config;
  private final StreamConnection.Handlers handlers;
  /** Whether a run is still the connection's current one: a stopped run tells nobody. */
  private final Predicate<StreamRun> isCurrent;

  StreamAttempt(
      Transport transport, ResolvedConfig config, StreamConnection.Handlers handlers, Predicate<StreamRun> isCurrent) {
    this.transport = transport;
    this.config = config;
    this.handlers = handlers;
    this.isCurrent = isCurrent;
  }

  /** One connection, from request to its end; throws when it failed (a reconnect follows). */
  Outcome connectOnce(StreamRun r, Backoff backoff) {
    ServiceLogger logger = config.logger();
    long silenceMs = config.streamSilenceTimeout().toMillis();
    StreamHttpConnection connection = new StreamHttpConnection();
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
      head.whenComplete((response, error) -> r.inbox.offer(new StreamRun.Head(connection, response, error)));
      if (connection.cancelled) head.cancel(true);

      // The silence limit covers the answer's head too: a server that never answers is silent.
      Object message = r.await(connection, silenceMs);
      if (message == StreamRun.STOP) return Outcome.STOPPED;
      if (message == null) throw silence(silenceMs);
      StreamRun.Head answer = (StreamRun.Head) message;
      if (answer.error() != null) {
        throw new ServiceException("stream: " + Transport.describe(unwrap(answer.error())), unwrap(answer.error()));
      }
      HttpResponse<Flow.Publisher<List<ByteBuffer>>> response = answer.response();
      int status = response.statusCode();
      if (status < 200 || status >= 300) {
        connection.takeBody(response).subscribe(new StreamHttpConnection.Cancelling());
        ServiceException error =
            Transport.errorOf(status, response.headers(), new byte[0], Transport.Operation.STREAM);
        if (error instanceof ServiceUnauthorizedException || error instanceof ServiceNotFoundException) {
          logger.error("stream refused, not reconnecting: " + error.getMessage(), error);
          if (isCurrent.test(r)) handlers.onError(error);
          if (error instanceof ServiceUnauthorizedException) handlers.onRefused();
          return Outcome.FATAL;
        }
        throw error;
      }
      String contentType = response.headers().firstValue("Content-Type").orElse("");
      if (!contentType.startsWith("text/event-stream")) {
        connection.takeBody(response).subscribe(new StreamHttpConnection.Cancelling());
        throw new ServiceException("stream: unexpected content type \"" + contentType + "\"");
      }

      connectedAt = System.nanoTime();
      if (isCurrent.test(r)) handlers.onState(true);
      logger.info("stream connected");

      List<SseEvent> batch = new ArrayList<>();
      SseParser parser = new SseParser(batch::add);
      connection.takeBody(response).subscribe(new StreamRun.Forwarding(r, connection));
      for (;;) {
        message = r.await(connection, silenceMs);
        if (message == StreamRun.STOP) return Outcome.STOPPED;
        if (message == null) throw silence(silenceMs);
        if (message instanceof StreamRun.End end) {
          if (end.error() != null) {
            throw new ServiceException("stream: " + Transport.describe(unwrap(end.error())), unwrap(end.error()));
          }
          break;
        }
        for (ByteBuffer buffer : ((StreamRun.Chunk) message).data()) parser.feed(buffer);
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
      if (connectedAt >= 0 && isCurrent.test(r)) handlers.onState(false);
    }
  }

  private static ServiceException silence(long silenceMs) {
    return new ServiceException("stream: no data for " + silenceMs + " ms");
  }

  /** The failure itself, not the future's wrapper around it. */
  private static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof java.util.concurrent.CompletionException
            || e instanceof java.util.concurrent.ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
