package dev.strata.launcher.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.strata.launcher.run.Generation;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The OpenAI-compatible HTTP API of {@code strata-launch --serve} on the JDK's {@code
 * jdk.httpserver}: {@code GET /health}, {@code GET /v1/models}, {@code POST /v1/completions},
 * {@code POST /v1/chat/completions} ({@code stream: true}: server-sent events ending {@code data:
 * [DONE]}). Nothing else is served (every other path is a 404 JSON error; nothing of the file
 * system). Each request is checked here (body size and time, JSON, types, model, limits; the API
 * key when one is set) and then queued for the {@link SessionWorker}. Each connection's requests
 * are handled on a virtual thread, so a slow client holds no thread the others wait for; the JDK's
 * own limits bound the connections and the time a request may take to arrive ({@link JdkLimits}).
 * docs/LAUNCH.md, "Serving", "Limits".
 */
public final class OpenAiServer implements AutoCloseable {

  /**
   * The server's settings.
   *
   * @param modelId the one model's id ({@code /v1/models}, the requests' {@code model})
   * @param apiKey the key every request must bear ({@code Authorization: Bearer KEY}), or null
   * @param maxBodyBytes the largest request body (more: 413)
   * @param bodyDeadline how long a request's body may take to arrive (more: 408)
   * @param maxTokens the largest {@code max_tokens}
   */
  public record Settings(
      String modelId, String apiKey, int maxBodyBytes, Duration bodyDeadline, int maxTokens) {}

  static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer http;
  private final ExecutorService threads;
  private final ScheduledExecutorService timer;
  private final Job.Queue worker;
  private final ChatTemplate template;
  private final Settings settings;
  private final PrintWriter log;
  private final int nCtx;
  private final AtomicLong ids = new AtomicLong();
  private final long created = System.currentTimeMillis() / 1000;

  OpenAiServer(
      InetSocketAddress address,
      Job.Queue worker,
      ChatTemplate template,
      int nCtx,
      Settings settings,
      PrintWriter log)
      throws IOException {
    this.worker = worker;
    this.template = template;
    this.settings = settings;
    this.log = log;
    this.nCtx = nCtx;
    JdkLimits.apply(); // before the first server: the JDK reads them once
    this.http = HttpServer.create(address, 64);
    this.threads =
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("strata-serve-http").factory());
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "strata-serve-deadline");
              t.setDaemon(true);
              return t;
            });
    http.setExecutor(threads);
    http.createContext("/", this::handle);
  }

  void start() {
    http.start();
  }

  /** The port listened on (the one asked for, or the one the system chose for port 0). */
  int port() {
    return http.getAddress().getPort();
  }

  @Override
  public void close() {
    http.stop(1); // up to 1 s for the handlers to write what their stopped jobs say
    threads.shutdownNow();
    timer.shutdownNow();
  }

  private void handle(HttpExchange ex) {
    long t0 = System.nanoTime();
    String method = ex.getRequestMethod();
    String path = ex.getRequestURI().getRawPath();
    int[] status = {0};
    String note = "";
    try {
      if (settings.apiKey() != null && !keyOk(ex.getRequestHeaders().getFirst("Authorization"))) {
        throw new ApiError(
            401,
            "invalid_request_error",
            null,
            "invalid_api_key",
            "a valid API key is required: send Authorization: Bearer KEY (the server's"
                + " --api-key or STRATA_API_KEY)");
      }
      switch (path) {
        case "/health" -> {
          allow(method, "GET");
          ObjectNode o = OpenAiReplies.object();
          o.put("status", "ok");
          o.put("waiting", worker.waiting());
          send(ex, 200, o, status);
        }
        case "/v1/models" -> {
          allow(method, "GET");
          ObjectNode list = OpenAiReplies.object();
          list.put("object", "list");
          list.putArray("data").add(model());
          send(ex, 200, list, status);
        }
        case "/v1/models/" -> throw notFound(path);
        case "/v1/completions", "/v1/chat/completions" -> {
          allow(method, "POST");
          note = generate(ex, path.equals("/v1/chat/completions"), status);
        }
        default -> {
          if (path.startsWith("/v1/models/")
              && path.substring("/v1/models/".length()).equals(settings.modelId())) {
            allow(method, "GET");
            send(ex, 200, model(), status);
          } else {
            throw notFound(path);
          }
        }
      }
    } catch (ApiError e) {
      if (status[0] != 0) {
        note = e.getMessage(); // answered already (a 413 or 408 while the body was read)
      }
      sendError(ex, e, status);
    } catch (IOException e) {
      note = "client gone: " + e.getMessage();
    } catch (RuntimeException e) {
      sendError(ex, new ApiError(500, "server_error", null, null, "internal error: " + e), status);
    } finally {
      ex.close();
      // one line per request: never a header (the key), never a body; formatted first and
      // written in one call, so concurrent handlers' lines never interleave (printf writes in
      // pieces)
      log.print(
          String.format(
              Locale.ROOT,
              "serve: %s %s %d %.3f s%s%n",
              method,
              path.length() > 80 ? path.substring(0, 80) + "…" : path,
              status[0],
              (System.nanoTime() - t0) / 1e9,
              note.isEmpty() ? "" : " " + note));
      log.flush();
    }
  }

  private ObjectNode model() {
    return OpenAiReplies.model(settings.modelId(), created, nCtx, template);
  }

  private boolean keyOk(String header) {
    if (header == null || !header.startsWith("Bearer ")) {
      return false;
    }
    byte[] given = header.substring("Bearer ".length()).trim().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(given, settings.apiKey().getBytes(StandardCharsets.UTF_8));
  }

  private static void allow(String method, String allowed) {
    if (!method.equals(allowed)) {
      throw new ApiError(
          405, "invalid_request_error", null, "method_not_allowed", "use " + allowed + " here");
    }
  }

  private static ApiError notFound(String path) {
    return new ApiError(
        404,
        "invalid_request_error",
        null,
        "not_found",
        "no such endpoint: this server has /health, /v1/models, /v1/completions and"
            + " /v1/chat/completions");
  }

  /** A completion or a chat completion; returns a note for the log line. */
  private String generate(HttpExchange ex, boolean chat, int[] status) throws IOException {
    OpenAiRequest req =
        OpenAiRequest.of(
            OpenAiRequest.body(
                RequestBody.read(
                    ex, settings.maxBodyBytes(), settings.bodyDeadline(), timer, status)),
            chat,
            settings.modelId(),
            settings.maxTokens());
    String id = (chat ? "chatcmpl-" : "cmpl-") + Long.toString(ids.incrementAndGet(), 36);
    return req.stream() ? stream(ex, chat, id, req, status) : whole(ex, chat, id, req, status);
  }

  /**
   * A non-streamed answer. Its headers (200, chunked) go when generation starts, and a space —
   * JSON's insignificant whitespace before the body — is written and flushed for each piece of
   * text: {@code jdk.httpserver} shows a handler a closed connection only when a write fails, so
   * this is how a client that went away cancels its generation (within two tokens: the first write
   * after the peer closed still succeeds, and is answered with a reset). A refusal before
   * generation starts (the context, the template) is still its own 4xx.
   */
  private String whole(HttpExchange ex, boolean chat, String id, OpenAiRequest req, int[] status)
      throws IOException {
    Heartbeat beat = new Heartbeat(ex, status);
    Generation.Result r;
    try {
      r = await(req.job(beat));
    } catch (ApiError e) {
      if (beat.out == null) {
        throw e;
      }
      beat.out.write(JSON.writeValueAsBytes(OpenAiReplies.error(e))); // after a 200: the body says
      return "failed after the headers: " + e.getMessage();
    }
    if (r.stop() != Generation.Stop.CANCELLED) {
      beat.out.write(
          JSON.writeValueAsBytes(OpenAiReplies.completion(id, chat, settings.modelId(), r)));
      beat.out.flush();
    }
    return OpenAiReplies.note(r);
  }

  /** A non-streamed answer's progress: its headers when generation starts, a space per piece. */
  private static final class Heartbeat implements Job.Sink {
    private final HttpExchange ex;
    private final int[] status;
    private OutputStream out; // null until the headers went

    Heartbeat(HttpExchange ex, int[] status) {
      this.ex = ex;
      this.status = status;
    }

    @Override
    public void started(int promptTokens) throws IOException {
      out = begin(ex, "application/json", status);
    }

    @Override
    public void text(String piece) throws IOException {
      out.write(' ');
      out.flush();
    }
  }

  private String stream(HttpExchange ex, boolean chat, String id, OpenAiRequest req, int[] status)
      throws IOException {
    long createdAt = System.currentTimeMillis() / 1000;
    String model = settings.modelId();
    OutputStream[] out = {null};
    Job job =
        req.job(
            new Job.Sink() {
              @Override
              public void started(int n) throws IOException {
                ex.getResponseHeaders().set("Cache-Control", "no-cache");
                out[0] = begin(ex, "text/event-stream; charset=utf-8", status);
                if (chat) {
                  ObjectNode first = OpenAiReplies.delta("assistant", "");
                  event(out[0], OpenAiReplies.chunk(id, createdAt, true, model, first, null, null));
                }
              }

              @Override
              public void text(String piece) throws IOException {
                ObjectNode delta = chat ? OpenAiReplies.delta(null, piece) : null;
                event(out[0], OpenAiReplies.chunk(id, createdAt, chat, model, delta, piece, null));
              }
            });
    Generation.Result r;
    try {
      r = await(job);
    } catch (ApiError e) {
      if (out[0] != null) {
        return "failed while streaming: " + e.getMessage(); // the headers went: the body ends
      }
      throw e;
    }
    if (r.stop() == Generation.Stop.CANCELLED) {
      return OpenAiReplies.note(r);
    }
    ObjectNode last =
        OpenAiReplies.chunk(id, createdAt, chat, model, null, "", OpenAiReplies.finish(r));
    OpenAiReplies.usage(last, r);
    event(out[0], last);
    out[0].write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
    out[0].flush();
    return OpenAiReplies.note(r);
  }

  /** A 200's headers, chunked (the length is not known yet); the body's stream. */
  private static OutputStream begin(HttpExchange ex, String contentType, int[] status)
      throws IOException {
    ex.getResponseHeaders().set("Content-Type", contentType);
    ex.sendResponseHeaders(200, 0);
    status[0] = 200;
    return ex.getResponseBody();
  }

  private static void event(OutputStream out, ObjectNode o) throws IOException {
    out.write(("data: " + JSON.writeValueAsString(o) + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private Generation.Result await(Job job) throws IOException {
    if (!worker.offer(job)) {
      throw new ApiError(
          503,
          "server_error",
          null,
          "queue_full",
          "the server is busy (its queue of requests is full): retry after a second");
    }
    try {
      return job.done.get();
    } catch (InterruptedException e) {
      job.cancel();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof ApiError a) {
        throw a;
      }
      if (e.getCause() instanceof SessionWorker.Dropped d) {
        throw new ApiError(503, "server_error", null, "unavailable", d.getMessage());
      }
      throw new ApiError(500, "server_error", null, null, "internal error: " + e.getCause());
    }
  }

  private void send(HttpExchange ex, int code, JsonNode body, int[] status) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(code, bytes.length);
    status[0] = code;
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  private void sendError(HttpExchange ex, ApiError e, int[] status) {
    if (status[0] != 0) {
      return; // an answer already started
    }
    ObjectNode o = OpenAiReplies.error(e);
    if (e.status() == 503) {
      ex.getResponseHeaders().set("Retry-After", "1");
    }
    if (e.status() == 405) {
      ex.getResponseHeaders().set("Allow", "GET, POST");
    }
    try {
      send(ex, e.status(), o, status);
    } catch (IOException gone) {
      // the client went away: nothing to answer
    }
  }
}
