package dev.svc.client;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * One HTTP connection of a {@link StreamRun}: the request's answer and then its body's
 * subscription. {@link #cancel()} may come from another thread (a stop) at any stage, so every
 * stage checks {@link #cancelled} once it starts, and a body is never left open unread.
 */
final class StreamHttpConnection {
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

  /** Drops a body that is not read (an error answer), closing its connection. */
  static final class Cancelling implements Flow.Subscriber<List<ByteBuffer>> {
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
