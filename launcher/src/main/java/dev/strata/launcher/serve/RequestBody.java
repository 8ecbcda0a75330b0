package dev.strata.launcher.serve;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request's body read under a size cap and a deadline, so a client cannot hold its connection by
 * announcing a large {@code Content-Length} or by sending its body slowly.
 *
 * <p>A body over the cap is answered at once with <b>413</b> ({@code request_too_large}, naming the
 * limit) and {@code Connection: close}, before any of it is read; what the client goes on sending
 * is then read and dropped up to {@link #DRAIN_BYTES} (a socket closed with unread bytes is reset,
 * and the client would lose its 413 in the reset). A body not whole by the deadline is answered
 * with <b>408</b> ({@code request_timeout}) from the server's timer thread: {@code
 * jdk.httpserver}'s reads block and cannot be interrupted, so the handler stays in its read until
 * the client closes or the JDK's own request time ({@link JdkLimits#REQUEST_SECONDS}, which closes
 * the connection) runs out — a virtual thread, never one the other requests wait for.
 */
final class RequestBody {

  /** The most of a refused body read and dropped after its 413 (beyond: the socket is reset). */
  static final long DRAIN_BYTES = 16L << 20;

  private RequestBody() {}

  /**
   * The body's bytes.
   *
   * @param maxBytes the largest body
   * @param deadline how long the whole body may take, from the handler's start
   * @param timer where the 408 is sent from
   * @param status the answer's status once one went (the caller's log line)
   * @throws ApiError 400 (a malformed {@code Content-Length}); 413, 408 or 400 (a body that could
   *     not be read: a malformed chunk, or the client gone) already sent (its status in {@code
   *     status}: the caller sends nothing more)
   */
  static byte[] read(
      HttpExchange ex,
      int maxBytes,
      Duration deadline,
      ScheduledExecutorService timer,
      int[] status) {
    String length = ex.getRequestHeaders().getFirst("Content-Length");
    long declared = -1;
    if (length != null) {
      try {
        declared = Long.parseLong(length.trim());
      } catch (NumberFormatException e) {
        throw ApiError.invalid(null, "the Content-Length header is not a number");
      }
    }
    InputStream in = ex.getRequestBody();
    if (declared > maxBytes) {
      throw refuse(ex, in, tooBig(maxBytes), status);
    }
    AtomicBoolean reading = new AtomicBoolean(true);
    ApiError late = timeout(deadline);
    ScheduledFuture<?> alarm =
        timer.schedule(
            () -> {
              if (reading.compareAndSet(true, false)) {
                answer(ex, late, status);
              }
            },
            deadline.toMillis(),
            TimeUnit.MILLISECONDS);
    byte[] bytes;
    try {
      bytes = in.readNBytes(maxBytes + 1);
    } catch (IOException e) {
      if (!reading.compareAndSet(true, false)) {
        awaitAlarm(alarm);
        throw late; // the 408 went, then the connection was closed
      }
      alarm.cancel(false);
      // a chunked body the JDK cannot decode ("invalid chunk length") throws here as a client that
      // went away does: either way a 400 is tried (it is lost when the client is gone)
      ApiError bad = unreadable(e);
      answer(ex, bad, status);
      throw bad;
    }
    if (!reading.compareAndSet(true, false)) {
      awaitAlarm(alarm);
      throw late; // the body was whole just after the 408 went
    }
    alarm.cancel(false);
    if (bytes.length > maxBytes) {
      throw refuse(ex, in, tooBig(maxBytes), status); // a chunked body over the cap
    }
    return bytes;
  }

  /** Answers {@code e} before the rest of the body is read, then reads and drops that rest. */
  private static ApiError refuse(HttpExchange ex, InputStream in, ApiError e, int[] status) {
    answer(ex, e, status);
    byte[] buf = new byte[64 << 10];
    long left = DRAIN_BYTES;
    int n;
    try {
      while (left > 0 && (n = in.read(buf, 0, (int) Math.min(buf.length, left))) > 0) {
        left -= n;
      }
    } catch (IOException closed) {
      // the client closed after its answer, or sent a malformed rest: the answer went
    }
    return e;
  }

  /** Sends {@code e}'s JSON with {@code Connection: close}, flushed, the stream left open. */
  private static void answer(HttpExchange ex, ApiError e, int[] status) {
    try {
      byte[] body = OpenAiServer.JSON.writeValueAsBytes(OpenAiReplies.error(e));
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.getResponseHeaders().set("Connection", "close");
      ex.sendResponseHeaders(e.status(), body.length);
      status[0] = e.status();
      OutputStream out = ex.getResponseBody();
      out.write(body);
      out.flush(); // not closed: closing drains the body, and the handler is in a read of it
    } catch (IOException gone) {
      status[0] = e.status(); // the client went away: nothing to answer
    }
  }

  private static void awaitAlarm(ScheduledFuture<?> alarm) {
    try {
      alarm.get(); // its answer is written before the handler goes on
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // answer() catches what it can; nothing else to do
    }
  }

  private static ApiError tooBig(int maxBytes) {
    return new ApiError(
        413,
        "invalid_request_error",
        "body",
        "request_too_large",
        "the request body is over " + maxBytes + " bytes (this server's limit)");
  }

  private static ApiError unreadable(IOException e) {
    return new ApiError(
        400,
        "invalid_request_error",
        "body",
        null,
        "the request body could not be read: "
            + OpenAiRequest.clip(String.valueOf(e.getMessage()))
            + " (send it with a Content-Length, or as well-formed chunks)");
  }

  private static ApiError timeout(Duration deadline) {
    return new ApiError(
        408,
        "invalid_request_error",
        "body",
        "request_timeout",
        "the request body did not arrive within "
            + deadline.toSeconds()
            + " s (this server's limit): send the whole body at once");
  }
}
