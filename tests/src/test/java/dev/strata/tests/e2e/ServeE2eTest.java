package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strata.engine.Folders;
import dev.strata.testsupport.RepoRoot;
import dev.strata.testsupport.SharedData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code strata-launch --serve} as its own JVM on the shared dense model (tiny-qwen3-q8_0): the
 * official {@code openai} npm client (tests/openai-client, pinned) gets the same text as {@code
 * strata-launch --prompt --temp 0}; bad requests get 4xx OpenAI error bodies and the server keeps
 * serving; the API key off loopback. The load test is {@link ServeParallelE2eTest}'s.
 */
class ServeE2eTest {
  static final String PROMPT = "The Linux kernel";
  static final int N = 8;
  static final ObjectMapper JSON = new ObjectMapper();
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  static Path dir;
  static Path config;
  static Server server;

  /** A server process and what it wrote on standard error. */
  record Server(Process process, String base, StringBuffer err) implements AutoCloseable {
    static Server start(List<String> more) throws Exception {
      return start(config, more);
    }

    static Server start(Path config, List<String> more) throws Exception {
      return start(config, more, Map.of());
    }

    /** A server with {@code env} added to its environment. */
    static Server start(Path config, List<String> more, Map<String, String> env) throws Exception {
      List<String> args = new ArrayList<>(List.of("--config", config.toString(), "--serve"));
      args.addAll(more);
      ProcessBuilder pb = E2e.launcherProcess(args).redirectOutput(ProcessBuilder.Redirect.DISCARD);
      pb.environment().putAll(env);
      Process p = pb.start();
      p.getOutputStream().close();
      StringBuffer err = new StringBuffer();
      CountDownLatch ready = new CountDownLatch(1);
      String[] base = {null};
      Pattern serving = Pattern.compile("serving \\S+ on (http://\\S+)/v1 ");
      Thread t =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = r.readLine()) != null) {
                    err.append(line).append('\n');
                    Matcher m = serving.matcher(line);
                    if (m.find()) {
                      base[0] = m.group(1);
                      ready.countDown();
                    }
                  }
                } catch (IOException e) {
                  // the process ended
                }
                ready.countDown();
              });
      t.setDaemon(true);
      t.start();
      assertTrue(ready.await(60, TimeUnit.SECONDS), "the server said where it serves:\n" + err);
      assertTrue(base[0] != null, "the server started:\n" + err);
      return new Server(p, base[0].replace("0.0.0.0", "127.0.0.1"), err);
    }

    @Override
    public void close() {
      process.destroy(); // SIGTERM: the supervisor stops the server, exit 143
      try {
        assertTrue(process.waitFor(20, TimeUnit.SECONDS), "the server stopped on SIGTERM");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
      assertEquals(143, process.exitValue(), err.toString());
    }
  }

  @BeforeAll
  static void setUp() throws Exception {
    Path model = denseModel();
    dir = E2e.privateDir(Files.createTempDirectory("strata-serve-"));
    config = tinyConfig(dir.resolve("serve.yaml"), model);
    server = Server.start(List.of("--port", "0"));
  }

  @AfterAll
  static void tearDown() throws Exception {
    try {
      if (server != null) {
        server.close();
      }
    } finally {
      if (dir != null) {
        Folders.deleteQuietly(dir);
      }
    }
  }

  /** The shared dense model (tiny-qwen3-q8_0); the test is skipped without the shared data. */
  static Path denseModel() {
    Path model = SharedData.resolve("models/tiny-qwen3-q8_0.gguf").orElse(null);
    assumeTrue(model != null && Files.isRegularFile(model), SharedData.WHY_NOT);
    return model;
  }

  /** A strata-ref config of {@code model} at context 256, {@code more} engine flags appended. */
  static Path tinyConfig(Path file, Path model, String... more) throws IOException {
    List<String> args = new ArrayList<>(List.of("--prompt-tokens", "16", "--n-predict", "16"));
    args.addAll(List.of(more));
    return E2e.config(file, E2e.refLibrary(), null, List.of(model), 256, args, Map.of());
  }

  static HttpResponse<String> post(String base, String path, String body, String key)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(120))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      b.header("Authorization", "Bearer " + key);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A POST of {@code body} on a socket of its own, which the caller closes to go away. */
  static java.net.Socket rawPost(String base, String path, String body) throws IOException {
    URI u = URI.create(base);
    java.net.Socket sock = new java.net.Socket(u.getHost(), u.getPort());
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    sock.getOutputStream()
        .write(
            ("POST "
                    + path
                    + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: "
                    + b.length
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
    sock.getOutputStream().write(b);
    sock.getOutputStream().flush();
    return sock;
  }

  /**
   * The tokens of the {@code n}-th (0-based) generation the server's log says it cancelled for a
   * client gone ({@code client gone: cancelled after N tokens}), waiting up to 30 s for it.
   */
  static int cancelledAfter(Server s, int n) throws InterruptedException {
    Pattern gone = Pattern.compile("client gone: cancelled after (\\d+) tokens");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      Matcher m = gone.matcher(s.err());
      for (int i = 0; m.find(); i++) {
        if (i == n) {
          return Integer.parseInt(m.group(1));
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the server cancelled no generation #" + n + ":\n" + s.err());
      }
      Thread.sleep(100);
    }
  }

  static boolean onPath(String tool) {
    String path = System.getenv("PATH");
    return path != null
        && Arrays.stream(path.split(java.io.File.pathSeparator))
            .anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, tool)));
  }

  static String promptText(String prompt) {
    E2e.Result r =
        E2e.launch(
            "--config",
            config.toString(),
            "--prompt",
            prompt,
            "--temp",
            "0",
            "--n-predict",
            Integer.toString(N));
    assertEquals(0, r.code(), r.err());
    return r.out();
  }

  @Test
  void theOfficialOpenAiClientGetsWhatPromptGives() throws Exception {
    assumeTrue(
        onPath("node") && onPath("npm"), "node and npm are needed for the openai npm client");
    Path client = RepoRoot.path().resolve("tests/openai-client");
    Process install =
        new ProcessBuilder(client.resolve("install.sh").toString())
            .redirectErrorStream(true)
            .start();
    String installOut = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(install.waitFor(300, TimeUnit.SECONDS));
    assertEquals(0, install.exitValue(), installOut);
    Process node =
        new ProcessBuilder(
                "node",
                client.resolve("client.mjs").toString(),
                server.base() + "/v1",
                "tiny-qwen3-q8_0",
                PROMPT,
                Integer.toString(N))
            .start();
    String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(node.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(node.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, node.exitValue(), err + "\n" + server.err());
    JsonNode j = JSON.readTree(out);
    assertEquals("tiny-qwen3-q8_0", j.get("models").get(0).get("id").asText());
    // the tiny model has no tokenizer.chat_template: the documented fallback
    assertEquals("fallback", j.get("models").get(0).get("chat_template").asText());
    assertEquals(promptText(PROMPT), j.get("completion").asText(), "completion = --prompt");
    String chatExpected = promptText("User: " + PROMPT + "\nAssistant:");
    assertFalse(chatExpected.isEmpty());
    assertEquals(chatExpected, j.get("chat").asText(), "chat = --prompt of the fallback's text");
    assertEquals(chatExpected, j.get("streamed").asText(), "streamed chat = the same text");
    assertTrue(j.get("chunks").asInt() >= 2, out);
    assertEquals(N, j.get("completion_usage").get("completion_tokens").asInt(), out);
  }

  @Test
  void aModelWithAChatTemplateIsRenderedWithIt() throws Exception {
    // a computable qwen3 (TinyModel) whose metadata carries a ChatML template
    dev.strata.engine.model.TinyModel tiny = dev.strata.engine.model.TinyModel.dense("qwen3");
    Path shard =
        tiny.write(
                dir,
                "templated",
                1,
                7,
                java.util.Map.of(
                    "tokenizer.chat_template",
                    dev.strata.engine.model.GgufValue.string(
                        "{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] +"
                            + " '<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{"
                            + " '<|im_start|>assistant\\n' }}{% endif %}\n")))
            .getFirst();
    Path cfg =
        E2e.config(
            dir.resolve("templated.yaml"),
            E2e.refLibrary(),
            null,
            List.of(shard),
            256,
            List.of("--prompt-tokens", "16", "--n-predict", "16"),
            Map.of());
    try (Server s = Server.start(cfg, List.of("--port", "0"))) {
      HttpResponse<String> models =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(s.base() + "/v1/models")).build(),
              HttpResponse.BodyHandlers.ofString());
      JsonNode m = JSON.readTree(models.body()).get("data").get(0);
      assertEquals("gguf", m.get("chat_template").asText(), models.body());
      String id = m.get("id").asText();
      HttpResponse<String> chat =
          post(
              s.base(),
              "/v1/chat/completions",
              "{\"model\":\""
                  + id
                  + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
                  + "\"max_tokens\":4,\"temperature\":0}",
              null);
      assertEquals(200, chat.statusCode(), chat.body());
      E2e.Result p =
          E2e.launch(
              "--config",
              cfg.toString(),
              "--prompt",
              "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
              "--temp",
              "0",
              "--n-predict",
              "4");
      assertEquals(0, p.code(), p.err());
      assertEquals(
          p.out(),
          JSON.readTree(chat.body()).get("choices").get(0).get("message").get("content").asText(),
          "the chat is --prompt of the template's rendering");
    }
  }

  @Test
  void badRequestsGetOpenAiErrorsAndTheServerKeepsServing() throws Exception {
    String longPrompt = "word ".repeat(400);
    // body, status, param (null: none), the code when one is expected
    List<String[]> cases =
        List.of(
            new String[] {"/v1/completions", "{\"model\": ", "400", null},
            new String[] {"/v1/completions", "[1, 2]", "400", null},
            new String[] {
              "/v1/completions", "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":7}", "400", "prompt"
            },
            new String[] {
              "/v1/completions",
              "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\"a\",\"max_tokens\":\"8\"}",
              "400",
              "max_tokens"
            },
            new String[] {
              "/v1/completions",
              "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\"a\",\"max_tokens\":-1}",
              "400",
              "max_tokens"
            },
            new String[] {
              "/v1/completions",
              "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\"a\",\"temperature\":\"hot\"}",
              "400",
              "temperature"
            },
            new String[] {
              "/v1/completions", "{\"model\":\"gpt-4\",\"prompt\":\"a\"}", "404", "model"
            },
            new String[] {
              "/v1/completions",
              "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\"" + longPrompt + "\"}",
              "400",
              "prompt"
            },
            new String[] {
              "/v1/chat/completions",
              "{\"model\":\"tiny-qwen3-q8_0\",\"messages\":\"hi\"}",
              "400",
              "messages"
            },
            new String[] {
              "/v1/chat/completions",
              "{\"model\":\"tiny-qwen3-q8_0\",\"messages\":[{\"role\":\"user\",\"content\":5}]}",
              "400",
              "messages[0].content"
            },
            new String[] {
              "/v1/chat/completions",
              "{\"model\":\"tiny-qwen3-q8_0\",\"messages\":[{\"role\":\"user\",\"content\":\"a\"}],"
                  + "\"stream\":\"yes\"}",
              "400",
              "stream"
            },
            new String[] {
              "/v1/completions",
              "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\"" + "x".repeat(1 << 20) + "\"}",
              "413",
              "body"
            },
            new String[] {"/v1/completions", "{\"prompt\":\"a\"}", "400", "model"},
            new String[] {"/etc/passwd", "{}", "404", null},
            new String[] {"/v1/../../etc/passwd", "{}", "404", null});
    for (String[] c : cases) {
      HttpResponse<String> r = post(server.base(), c[0], c[1], null);
      String what = c[0] + " " + (c[1].length() > 80 ? c[1].substring(0, 80) : c[1]);
      assertEquals(Integer.parseInt(c[2]), r.statusCode(), what + " → " + r.body());
      JsonNode e = JSON.readTree(r.body()).get("error");
      assertTrue(e != null && e.get("message").isTextual(), what + " → " + r.body());
      assertTrue(e.has("type") && e.has("param") && e.has("code"), r.body());
      if (c[3] != null) {
        assertEquals(c[3], e.get("param").asText(), what + " → " + r.body());
      }
    }
    HttpResponse<String> tooLong =
        post(
            server.base(),
            "/v1/completions",
            "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\"" + longPrompt + "\"}",
            null);
    assertEquals(
        "context_length_exceeded", JSON.readTree(tooLong.body()).get("error").get("code").asText());
    // still serving
    HttpResponse<String> ok =
        post(
            server.base(),
            "/v1/completions",
            "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\"Debian\",\"max_tokens\":2}",
            null);
    assertEquals(200, ok.statusCode(), ok.body());
    // a chat without max_tokens generates up to the context's end
    HttpResponse<String> open =
        post(
            server.base(),
            "/v1/chat/completions",
            "{\"model\":\"tiny-qwen3-q8_0\",\"messages\":[{\"role\":\"user\",\"content\":"
                + "\"Hi\"}],\"temperature\":0}",
            null);
    assertEquals(200, open.statusCode(), open.body());
    // a streamed completion: the chunks' text joined is the whole answer's
    String completion =
        "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\"Debian\",\"max_tokens\":6,\"temperature\":0";
    HttpResponse<String> whole = post(server.base(), "/v1/completions", completion + "}", null);
    HttpResponse<String> streamed =
        post(server.base(), "/v1/completions", completion + ",\"stream\":true}", null);
    assertEquals(200, streamed.statusCode());
    assertTrue(
        streamed.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
    StringBuilder joined = new StringBuilder();
    List<String> events = streamed.body().lines().filter(l -> l.startsWith("data: ")).toList();
    assertEquals("data: [DONE]", events.getLast());
    for (String e : events.subList(0, events.size() - 1)) {
      joined.append(JSON.readTree(e.substring(6)).get("choices").get(0).get("text").asText());
    }
    assertEquals(
        JSON.readTree(whole.body()).get("choices").get(0).get("text").asText(), joined.toString());
    HttpResponse<String> health =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(server.base() + "/health")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, health.statusCode());
  }

  @Test
  void offLoopbackEveryRequestNeedsTheKeyAndTheLogNeverShowsIt() throws Exception {
    // without a key, a non-loopback address is refused before anything loads
    E2e.Result refused =
        E2e.launch("--config", config.toString(), "--serve", "--host", "0.0.0.0", "--port", "0");
    assertEquals(2, refused.code(), refused.err());
    assertTrue(refused.err().contains("--api-key"), refused.err());
    String key = "sk-strata-test-" + Long.toHexString(System.nanoTime());
    try (Server s = Server.start(List.of("--host", "0.0.0.0", "--port", "0", "--api-key", key))) {
      String body = "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\"Debian\",\"max_tokens\":2}";
      HttpResponse<String> none = post(s.base(), "/v1/completions", body, null);
      assertEquals(401, none.statusCode(), none.body());
      assertEquals("invalid_api_key", JSON.readTree(none.body()).get("error").get("code").asText());
      HttpResponse<String> wrong = post(s.base(), "/v1/completions", body, key + "x");
      assertEquals(401, wrong.statusCode());
      HttpResponse<String> models =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(s.base() + "/v1/models")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(401, models.statusCode());
      HttpResponse<String> ok = post(s.base(), "/v1/completions", body, key);
      assertEquals(200, ok.statusCode(), ok.body());
      assertFalse(s.err().toString().contains(key), "the log never prints the key");
    }
  }

  @Test
  void aFullQueueAnswers503AndADisconnectedStreamIsCancelled() throws Exception {
    try (Server s = Server.start(List.of("--port", "0", "--queue", "1"))) {
      String body = "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\"The Debian\",\"max_tokens\":48}";
      List<Thread> threads = new ArrayList<>();
      ConcurrentLinkedQueue<HttpResponse<String>> answers = new ConcurrentLinkedQueue<>();
      for (int i = 0; i < 6; i++) {
        Thread t =
            new Thread(
                () -> {
                  try {
                    answers.add(post(s.base(), "/v1/completions", body, null));
                  } catch (Exception e) {
                    throw new AssertionError(e);
                  }
                });
        threads.add(t);
        t.start();
      }
      for (Thread t : threads) {
        t.join(120_000);
      }
      assertEquals(6, answers.size());
      long busy = answers.stream().filter(a -> a.statusCode() == 503).count();
      assertTrue(busy >= 1, "one running and one queued: the rest are told to come back");
      for (HttpResponse<String> a : answers) {
        assertTrue(a.statusCode() == 200 || a.statusCode() == 503, a.body());
        if (a.statusCode() == 503) {
          assertEquals("1", a.headers().firstValue("Retry-After").orElse(null));
          assertEquals(
              "queue_full", JSON.readTree(a.body()).get("error").get("code").asText(), a.body());
        }
      }
      // a streamed request whose client goes away after the first tokens: cancelled
      String stream =
          "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\"The Debian\",\"max_tokens\":200,"
              + "\"stream\":true}";
      try (java.net.Socket sock = rawPost(s.base(), "/v1/completions", stream)) {
        BufferedReader r =
            new BufferedReader(
                new InputStreamReader(sock.getInputStream(), StandardCharsets.UTF_8));
        String line;
        int events = 0;
        while ((line = r.readLine()) != null && events < 3) {
          if (line.startsWith("data: {")) {
            events++;
          }
        }
        assertEquals(3, events, "the stream started");
      }
      assertTrue(cancelledAfter(s, 0) < 200, "the stream stopped early");
      HttpResponse<String> after = post(s.base(), "/v1/completions", body, null);
      assertEquals(200, after.statusCode(), "the next request is not the one cancelled");
      assertEquals(48, JSON.readTree(after.body()).get("usage").get("completion_tokens").asInt());
    }
  }

  @Test
  void aWholeAnswerInFlightWhenTheServerStopsIsAnErrorNotABlankBody() throws Exception {
    try (Server s = Server.start(List.of("--port", "0"))) {
      String body = "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\"The Debian\",\"max_tokens\":240}";
      java.util.concurrent.CompletableFuture<HttpResponse<String>> answer =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> {
                try {
                  return post(s.base(), "/v1/completions", body, null);
                } catch (Exception e) {
                  throw new AssertionError(e);
                }
              });
      Thread.sleep(400); // generating (240 tokens take over a second here)
      s.process().destroy(); // SIGTERM while the answer's headers (200) went and its body did not
      HttpResponse<String> a = answer.get(60, TimeUnit.SECONDS);
      assertTrue(
          !a.body().isBlank(), "a body that is only the heartbeat's spaces: '" + a.body() + "'");
      com.fasterxml.jackson.databind.JsonNode j = JSON.readTree(a.body());
      assertTrue(
          j.has("choices")
              || "the server is stopping".equals(j.path("error").path("message").asText()),
          a.body());
    }
  }
}
