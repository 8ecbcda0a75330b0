package dev.strata.launcher.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.strata.launcher.run.Generation;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The OpenAI-compatible HTTP API of {@code strata-launch --serve} on the JDK's {@code
 * jdk.httpserver}: {@code GET /health}, {@code GET /v1/models}, {@code POST /v1/completions},
 * {@code POST /v1/chat/completions} ({@code stream: true}: server-sent events ending {@code data:
 * [DONE]}). Nothing else is served (every other path is a 404 JSON error; nothing of the file
 * system). Each request is checked here (body size, JSON, types, model, limits; the API key when
 * one is set) and then queued for the {@link SessionWorker}. docs/LAUNCH.md, "Serving".
 */
public final class OpenAiServer implements AutoCloseable {

  /**
   * The server's settings.
   *
   * @param modelId the one model's id ({@code /v1/models}, the requests' {@code model})
   * @param apiKey the key every request must bear ({@code Authorization: Bearer KEY}), or null
   * @param maxBodyBytes the largest request body
   * @param maxTokens the largest {@code max_tokens}
   * @param threads HTTP threads (requests being read, waiting in the queue or streamed)
   */
  public record Settings(
      String modelId, String apiKey, int maxBodyBytes, int maxTokens, int threads) {}

  static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final int DEFAULT_MAX_TOKENS = 16; // OpenAI's default for /v1/completions

  private final HttpServer http;
  private final ExecutorService threads;
  private final SessionWorker worker;
  private final ChatTemplate template;
  private final Settings settings;
  private final PrintWriter log;
  private final int nCtx;
  private final AtomicLong ids = new AtomicLong();
  private final long created = System.currentTimeMillis() / 1000;

  OpenAiServer(
      InetSocketAddress address,
      SessionWorker worker,
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
    this.http = HttpServer.create(address, 64);
    this.threads =
        Executors.newFixedThreadPool(
            settings.threads(),
            r -> {
              Thread t = new Thread(r, "strata-serve-http");
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
    http.stop(0);
    threads.shutdownNow();
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
          ObjectNode o = NODES.objectNode();
          o.put("status", "ok");
          o.put("waiting", worker.waiting());
          send(ex, 200, o, status);
        }
        case "/v1/models" -> {
          allow(method, "GET");
          ObjectNode list = NODES.objectNode();
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
      sendError(ex, e, status);
    } catch (IOException e) {
      note = "client gone: " + e.getMessage();
    } catch (RuntimeException e) {
      sendError(ex, new ApiError(500, "server_error", null, null, "internal error: " + e), status);
    } finally {
      ex.close();
      // one line per request: never a header (the key), never a body
      log.printf(
          Locale.ROOT,
          "serve: %s %s %d %.3f s%s%n",
          method,
          path.length() > 80 ? path.substring(0, 80) + "…" : path,
          status[0],
          (System.nanoTime() - t0) / 1e9,
          note.isEmpty() ? "" : " " + note);
      log.flush();
    }
  }

  private ObjectNode model() {
    ObjectNode m = NODES.objectNode();
    m.put("id", settings.modelId());
    m.put("object", "model");
    m.put("created", created);
    m.put("owned_by", "strata");
    m.put("context_length", nCtx);
    m.put("chat_template", template.kind());
    if (template.why() != null) {
      m.put("chat_template_note", template.why() + "; the fallback: " + ChatTemplate.FALLBACK_DOC);
    }
    return m;
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
    JsonNode body = readBody(ex);
    String model = string(body, "model", true);
    if (!model.equals(settings.modelId())) {
      throw new ApiError(
          404,
          "invalid_request_error",
          "model",
          "model_not_found",
          "the model '"
              + clip(model)
              + "' does not exist here: this server has '"
              + settings.modelId()
              + "' (GET /v1/models)");
    }
    String prompt = null;
    List<ChatTemplate.Message> messages = null;
    if (chat) {
      messages = messages(body);
    } else {
      JsonNode p = body.get("prompt");
      if (p == null || p.isNull()) {
        throw ApiError.invalid("prompt", "prompt is required (a string)");
      }
      if (p.isArray() && p.size() == 1 && p.get(0).isTextual()) {
        p = p.get(0);
      }
      if (!p.isTextual()) {
        throw ApiError.invalid("prompt", "prompt must be a string (one prompt per request here)");
      }
      prompt = p.asText();
    }
    int maxTokens = maxTokens(body, chat);
    float temp = number(body, "temperature", 1.0, 0, 2);
    float topP = number(body, "top_p", 1.0, 0, 1);
    if (body.has("top_p") && topP <= 0) {
      throw ApiError.invalid("top_p", "top_p must be above 0 (at most 1)");
    }
    int topK = (int) whole(body, "top_k", 0, 0, 1 << 24);
    long seed = body.hasNonNull("seed") ? seed(body) : ThreadLocalRandom.current().nextLong();
    JsonNode n = body.get("n");
    if (n != null && !n.isNull() && !(n.isIntegralNumber() && n.asLong() == 1)) {
      throw ApiError.invalid("n", "n must be 1 here (one choice per request)");
    }
    JsonNode stop = body.get("stop");
    if (stop != null && !stop.isNull() && !(stop.isArray() && stop.isEmpty())) {
      throw ApiError.invalid("stop", "stop sequences are not supported by this server yet");
    }
    boolean stream = bool(body, "stream");
    String id = (chat ? "chatcmpl-" : "cmpl-") + Long.toString(ids.incrementAndGet(), 36);
    String text = prompt;
    List<ChatTemplate.Message> conversation = messages;
    java.util.function.Function<Job.Sink, Job> job =
        sink -> new Job(text, conversation, maxTokens, temp, topK, topP, seed, sink);
    return stream ? stream(ex, chat, id, job, status) : whole(ex, chat, id, job, status);
  }

  private String whole(
      HttpExchange ex,
      boolean chat,
      String id,
      java.util.function.Function<Job.Sink, Job> newJob,
      int[] status)
      throws IOException {
    int[] promptTokens = {0};
    Job job =
        newJob.apply(
            new Job.Sink() {
              @Override
              public void started(int n) {
                promptTokens[0] = n;
              }

              @Override
              public void text(String piece) {}
            });
    Generation.Result r = await(job);
    ObjectNode o = NODES.objectNode();
    o.put("id", id);
    o.put("object", chat ? "chat.completion" : "text_completion");
    o.put("created", System.currentTimeMillis() / 1000);
    o.put("model", settings.modelId());
    ObjectNode choice = o.putArray("choices").addObject();
    choice.put("index", 0);
    if (chat) {
      ObjectNode m = choice.putObject("message");
      m.put("role", "assistant");
      m.put("content", r.text());
    } else {
      choice.put("text", r.text());
      choice.putNull("logprobs");
    }
    choice.put("finish_reason", finish(r));
    usage(o, r);
    send(ex, 200, o, status);
    return note(r);
  }

  private String stream(
      HttpExchange ex,
      boolean chat,
      String id,
      java.util.function.Function<Job.Sink, Job> newJob,
      int[] status)
      throws IOException {
    long createdAt = System.currentTimeMillis() / 1000;
    OutputStream[] out = {null};
    Job job =
        newJob.apply(
            new Job.Sink() {
              @Override
              public void started(int n) throws IOException {
                ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
                ex.getResponseHeaders().set("Cache-Control", "no-cache");
                ex.sendResponseHeaders(200, 0);
                status[0] = 200;
                out[0] = ex.getResponseBody();
                if (chat) {
                  ObjectNode delta = NODES.objectNode();
                  delta.put("role", "assistant");
                  delta.put("content", "");
                  event(out[0], chunk(id, createdAt, true, delta, null, null));
                }
              }

              @Override
              public void text(String piece) throws IOException {
                ObjectNode delta = NODES.objectNode();
                delta.put(chat ? "content" : "text", piece);
                event(out[0], chunk(id, createdAt, chat, chat ? delta : null, piece, null));
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
      return "client gone: cancelled after " + r.generatedTokens() + " tokens";
    }
    ObjectNode last = chunk(id, createdAt, chat, chat ? NODES.objectNode() : null, "", finish(r));
    usage(last, r);
    event(out[0], last);
    out[0].write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
    out[0].flush();
    return note(r);
  }

  private ObjectNode chunk(
      String id, long createdAt, boolean chat, ObjectNode delta, String text, String finish) {
    ObjectNode o = NODES.objectNode();
    o.put("id", id);
    o.put("object", chat ? "chat.completion.chunk" : "text_completion");
    o.put("created", createdAt);
    o.put("model", settings.modelId());
    ObjectNode c = o.putArray("choices").addObject();
    c.put("index", 0);
    if (chat) {
      c.set("delta", delta);
    } else {
      c.put("text", text);
      c.putNull("logprobs");
    }
    if (finish == null) {
      c.putNull("finish_reason");
    } else {
      c.put("finish_reason", finish);
    }
    return o;
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

  private static String finish(Generation.Result r) {
    return r.stop() == Generation.Stop.EOG ? "stop" : "length";
  }

  private static void usage(ObjectNode o, Generation.Result r) {
    ObjectNode u = o.putObject("usage");
    u.put("prompt_tokens", r.promptTokens());
    u.put("completion_tokens", r.generatedTokens());
    u.put("total_tokens", r.promptTokens() + r.generatedTokens());
  }

  private static String note(Generation.Result r) {
    return String.format(
        Locale.ROOT,
        "prompt=%d completion=%d (%.1f tok/s) finish=%s",
        r.promptTokens(),
        r.generatedTokens(),
        r.decodeTokS(),
        finish(r));
  }

  private JsonNode readBody(HttpExchange ex) throws IOException {
    String length = ex.getRequestHeaders().getFirst("Content-Length");
    if (length != null) {
      try {
        if (Long.parseLong(length.trim()) > settings.maxBodyBytes()) {
          throw tooBig();
        }
      } catch (NumberFormatException e) {
        throw ApiError.invalid(null, "the Content-Length header is not a number");
      }
    }
    byte[] bytes;
    try (InputStream in = ex.getRequestBody()) {
      bytes = in.readNBytes(settings.maxBodyBytes() + 1);
    }
    if (bytes.length > settings.maxBodyBytes()) {
      throw tooBig();
    }
    JsonNode body;
    try {
      body = JSON.readTree(bytes);
    } catch (JsonProcessingException e) {
      throw ApiError.invalid(
          null,
          "the request body is not valid JSON: "
              + e.getOriginalMessage().lines().findFirst().orElse(""));
    }
    if (body == null || !body.isObject()) {
      throw ApiError.invalid(null, "the request body must be a JSON object");
    }
    return body;
  }

  private ApiError tooBig() {
    return ApiError.invalid(
        "body",
        "request_too_large",
        "the request body is over " + settings.maxBodyBytes() + " bytes (this server's limit)");
  }

  private static List<ChatTemplate.Message> messages(JsonNode body) {
    JsonNode ms = body.get("messages");
    if (ms == null || !ms.isArray() || ms.isEmpty()) {
      throw ApiError.invalid("messages", "messages must be a non-empty array of {role, content}");
    }
    List<ChatTemplate.Message> out = new ArrayList<>();
    for (int i = 0; i < ms.size(); i++) {
      JsonNode m = ms.get(i);
      String at = "messages[" + i + "]";
      if (!m.isObject()) {
        throw ApiError.invalid(at, at + " must be an object {role, content}");
      }
      JsonNode role = m.get("role");
      if (role == null || !role.isTextual()) {
        throw ApiError.invalid(at + ".role", at + ".role must be a string");
      }
      String r = role.asText();
      if (!List.of("system", "developer", "user", "assistant").contains(r)) {
        throw ApiError.invalid(
            at + ".role",
            at + ".role '" + clip(r) + "' is not one of system, developer, user, assistant");
      }
      out.add(new ChatTemplate.Message(r.equals("developer") ? "system" : r, content(m, at)));
    }
    return out;
  }

  /** A message's content: a string, or an array of {type: text, text} parts (joined). */
  private static String content(JsonNode m, String at) {
    JsonNode c = m.get("content");
    if (c != null && c.isTextual()) {
      return c.asText();
    }
    if (c != null && c.isArray()) {
      StringBuilder b = new StringBuilder();
      for (JsonNode part : (ArrayNode) c) {
        if (!part.isObject()
            || !"text".equals(part.path("type").asText())
            || !part.path("text").isTextual()) {
          throw ApiError.invalid(
              at + ".content", at + ".content parts must be {type: text, text} here");
        }
        b.append(part.get("text").asText());
      }
      return b.toString();
    }
    throw ApiError.invalid(at + ".content", at + ".content must be a string");
  }

  private int maxTokens(JsonNode body, boolean chat) {
    String field =
        chat && body.hasNonNull("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      // a chat without a limit: up to the context's end (at most the server's limit)
      return chat ? Job.UP_TO_THE_CONTEXT : DEFAULT_MAX_TOKENS;
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
      throw ApiError.invalid(field, field + " must be a whole number");
    }
    int n = v.asInt();
    if (n < 0) {
      throw ApiError.invalid(field, field + " must not be negative (it is " + n + ")");
    }
    if (n > settings.maxTokens()) {
      throw ApiError.invalid(
          field, field + " " + n + " is over this server's limit of " + settings.maxTokens());
    }
    return n;
  }

  private static String string(JsonNode body, String field, boolean required) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw ApiError.invalid(field, field + " is required");
      }
      return null;
    }
    if (!v.isTextual()) {
      throw ApiError.invalid(field, field + " must be a string");
    }
    return v.asText();
  }

  private static float number(JsonNode body, String field, double dflt, double min, double max) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      return (float) dflt;
    }
    if (!v.isNumber()) {
      throw ApiError.invalid(field, field + " must be a number");
    }
    double d = v.asDouble();
    if (!(d >= min && d <= max)) {
      throw ApiError.invalid(field, field + " must be in " + min + ".." + max);
    }
    return (float) d;
  }

  private static long whole(JsonNode body, String field, long dflt, long min, long max) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
      throw ApiError.invalid(field, field + " must be a whole number " + min + ".." + max);
    }
    return v.asLong();
  }

  private static long seed(JsonNode body) {
    JsonNode v = body.get("seed");
    if (!v.isIntegralNumber()) {
      throw ApiError.invalid("seed", "seed must be a whole number");
    }
    return v.bigIntegerValue().longValue();
  }

  private static boolean bool(JsonNode body, String field) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      return false;
    }
    if (!v.isBoolean()) {
      throw ApiError.invalid(field, field + " must be true or false");
    }
    return v.asBoolean();
  }

  private static String clip(String s) {
    String t = s.length() > 64 ? s.substring(0, 64) + "…" : s;
    return dev.strata.engine.text.TerminalText.escape(t);
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
    ObjectNode o = NODES.objectNode();
    ObjectNode err = o.putObject("error");
    err.put("message", e.getMessage());
    err.put("type", e.type());
    if (e.param() == null) {
      err.putNull("param");
    } else {
      err.put("param", e.param());
    }
    if (e.code() == null) {
      err.putNull("code");
    } else {
      err.put("code", e.code());
    }
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
