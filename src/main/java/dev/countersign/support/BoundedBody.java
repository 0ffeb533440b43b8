package dev.countersign.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Collects a response body of at most {@code limit} bytes; a longer one is cancelled at the first
 * byte over the limit, so a hostile server cannot fill the memory. For {@link
 * java.net.http.HttpClient#sendAsync}, whose future then covers the headers and the whole body, so
 * one deadline on it bounds the exchange.
 */
public final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {

  /** The body is longer than the limit. */
  public static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("response body over the limit");
    }
  }

  private final long limit;
  private final CompletableFuture<byte[]> result = new CompletableFuture<>();
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private Flow.Subscription subscription;

  public BoundedBody(long limit) {
    this.limit = limit;
  }

  @Override
  public CompletionStage<byte[]> getBody() {
    return result;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    s.request(1);
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    if (result.isDone()) {
      return;
    }
    for (ByteBuffer buffer : buffers) {
      if (bytes.size() + (long) buffer.remaining() > limit) {
        subscription.cancel();
        result.completeExceptionally(new TooLarge());
        return;
      }
      byte[] chunk = new byte[buffer.remaining()];
      buffer.get(chunk);
      bytes.write(chunk, 0, chunk.length);
    }
    subscription.request(1);
  }

  @Override
  public void onError(Throwable error) {
    result.completeExceptionally(error);
  }

  @Override
  public void onComplete() {
    result.complete(bytes.toByteArray());
  }
}
