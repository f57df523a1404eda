package dev.svc.client;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One start-to-stop run of the stream's connect loop, and its inbox: the only thing the stream
 * thread waits on (see {@link StreamConnection}). A restart gets a fresh run, so what the HTTP
 * client posts late for a stopped run lands in an inbox nobody reads.
 */
final class StreamRun {
  /** Posted by {@link StreamConnection#stop()}: ends any wait at once. */
  static final Object STOP = new Object();

  /** A connection's answer head, or why none came. */
  record Head(StreamHttpConnection connection, HttpResponse<Flow.Publisher<List<ByteBuffer>>> response, Throwable error) {}

  /** One chunk of a connection's body. */
  record Chunk(StreamHttpConnection connection, List<ByteBuffer> data) {}

  /** The end of a connection's body: cleanly (no error) or not. */
  record End(StreamHttpConnection connection, Throwable error) {}

  final LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
  volatile boolean active = true;
  volatile StreamHttpConnection connection;
  Thread thread;

  /**
   * The next message of {@code from} (or a stop), waiting at most {@code timeoutMs}; null when the
   * time ran out. Messages of earlier connections are dropped.
   */
  Object await(StreamHttpConnection from, long timeoutMs) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    for (;;) {
      long left = deadline - System.nanoTime();
      if (left <= 0) return null;
      Object message;
      try {
        message = inbox.poll(left, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return STOP;
      }
      if (message == null) return null;
      if (message == STOP) return STOP;
      if (from != null && connectionOf(message) == from) return message;
    }
  }

  private static StreamHttpConnection connectionOf(Object message) {
    if (message instanceof Head head) return head.connection();
    if (message instanceof Chunk chunk) return chunk.connection();
    if (message instanceof End end) return end.connection();
    return null;
  }

  /** Posts the body's chunks and its end to the run's inbox. */
  static final class Forwarding implements Flow.Subscriber<List<ByteBuffer>> {
    private final StreamRun run;
    private final StreamHttpConnection connection;

    Forwarding(StreamRun run, StreamHttpConnection connection) {
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
}
