package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strata.engine.Backend;
import dev.strata.engine.Folders;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanRequest;
import dev.strata.engine.plan.UsableMemory;
import dev.strata.testsupport.RepoRoot;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code strata-launch --serve --parallel 2} on the shared dense model (tiny-qwen3-q8_0, ctx 256)
 * beside a {@code --parallel 1} server on the same config: two requests generate together (their
 * tokens interleave) and each gets the text it gets alone at temperature 0; the engine allocates
 * two sequences' pools; a non-streamed request whose client goes away is cancelled, and the other
 * sequence's request is whole; an N the plan cannot hold is refused naming the figures; and the
 * bounded load test (8 clients × 20 requests) on both servers, memory within the plan, figures to
 * {@code tests/target/serve-load/} (or the folder {@code STRATA_BENCH_OUT} names: that is how
 * bench/results/2026-12-02-serve/ was written; a suite run never rewrites committed results).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServeParallelE2eTest {
  static final int CTX = 256;

  /**
   * The servers' JVM heap fixed and touched at start ({@code -XX:+AlwaysPreTouch}), so what the
   * resident set gains while serving is the engine's and the JVM's code and threads, not a heap
   * growing on its own schedule.
   */
  static final Map<String, String> FIXED_HEAP =
      Map.of("JAVA_TOOL_OPTIONS", "-Xms96m -Xmx96m -XX:+AlwaysPreTouch");

  /**
   * What serving adds to the JVM beyond the engine's items: the classes, compiled code and thread
   * stacks of the HTTP server, Jackson and Jinjava loaded after the session opened. Measured at
   * 9–14 MiB for these servers (bench/results/2026-12-02-serve/); 32 MiB keeps noise out.
   */
  static final long JVM_ALLOWANCE = 32L << 20;

  static final Pattern MEMORY =
      Pattern.compile("serve: memory: start_rss_bytes=(-?\\d+) allocated_bytes=(\\d+)");
  static final Pattern KV = Pattern.compile("alloc: item=kv bytes=(\\d+)");
  static final Pattern WEIGHTS = Pattern.compile("alloc: item=weights bytes=(\\d+)");

  static Path dir;
  static Path model;
  static Path config;
  static ServeE2eTest.Server one;
  static ServeE2eTest.Server two;

  @BeforeAll
  static void setUp() throws Exception {
    model = ServeE2eTest.denseModel();
    dir = E2e.privateDir(Files.createTempDirectory("strata-serve-parallel-"));
    config = ServeE2eTest.tinyConfig(dir.resolve("serve.yaml"), model);
    one = ServeE2eTest.Server.start(config, List.of("--port", "0"), FIXED_HEAP);
    two = ServeE2eTest.Server.start(config, List.of("--port", "0", "--parallel", "2"), FIXED_HEAP);
  }

  @AfterAll
  static void tearDown() {
    try {
      for (ServeE2eTest.Server s : new ServeE2eTest.Server[] {one, two}) {
        if (s != null && s.process().isAlive()) {
          s.close();
        }
      }
    } finally {
      if (dir != null) {
        Folders.deleteQuietly(dir);
      }
    }
  }

  static String completion(String prompt, int maxTokens, boolean stream) {
    return "{\"model\":\"tiny-qwen3-q8_0\",\"prompt\":\""
        + prompt
        + "\",\"max_tokens\":"
        + maxTokens
        + ",\"temperature\":0"
        + (stream ? ",\"stream\":true}" : "}");
  }

  static String text(HttpResponse<String> r) throws IOException {
    assertEquals(200, r.statusCode(), r.body());
    return ServeE2eTest.JSON.readTree(r.body()).get("choices").get(0).get("text").asText();
  }

  /** A streamed completion: its text, and when its first and last pieces came (nanoTime). */
  record Streamed(String text, long first, long last) {}

  static Streamed stream(String base, String prompt, int maxTokens) throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(base + "/v1/completions"))
            .timeout(Duration.ofSeconds(120))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(completion(prompt, maxTokens, true)))
            .build();
    HttpResponse<Stream<String>> r =
        ServeE2eTest.HTTP.send(req, HttpResponse.BodyHandlers.ofLines());
    assertEquals(200, r.statusCode());
    StringBuilder text = new StringBuilder();
    long first = 0;
    long last = 0;
    for (String line : (Iterable<String>) r.body()::iterator) {
      if (line.startsWith("data: {")) {
        String piece =
            ServeE2eTest.JSON
                .readTree(line.substring("data: ".length()))
                .get("choices")
                .get(0)
                .get("text")
                .asText();
        if (!piece.isEmpty()) {
          long now = System.nanoTime();
          first = first == 0 ? now : first;
          last = now;
          text.append(piece);
        }
      }
    }
    return new Streamed(text.toString(), first, last);
  }

  static long kvBytes(ServeE2eTest.Server s) {
    Matcher m = KV.matcher(s.err());
    assertTrue(m.find(), s.err().toString());
    return Long.parseLong(m.group(1));
  }

  @Test
  @Order(1)
  void twoSequencesGenerateTogetherEachTheTextItGetsAlone() throws Exception {
    assertTrue(
        two.err().toString().contains("2 generations at once (--parallel)"), two.err().toString());
    assertTrue(
        two.err().toString().contains("kv: sequences=2 bytes_per_sequence="), two.err().toString());
    assertEquals(2 * kvBytes(one), kvBytes(two), "two sequences: two sequences' pools");
    String a = "The Debian package manager";
    String b = "Rust ownership rules";
    int n = 48;
    String aloneA =
        text(ServeE2eTest.post(one.base(), "/v1/completions", completion(a, n, false), null));
    String aloneB =
        text(ServeE2eTest.post(one.base(), "/v1/completions", completion(b, n, false), null));
    assertFalse(aloneA.equals(aloneB), "two prompts that say different things");
    Streamed[] got = new Streamed[2];
    Thread ta = new Thread(() -> got[0] = call(() -> stream(two.base(), a, n)));
    Thread tb = new Thread(() -> got[1] = call(() -> stream(two.base(), b, n)));
    ta.start();
    tb.start();
    ta.join(120_000);
    tb.join(120_000);
    assertEquals(aloneA, got[0].text(), "sequence of A: the text A gets alone");
    assertEquals(aloneB, got[1].text(), "sequence of B: the text B gets alone");
    // together: each stream's first piece came before the other's last
    assertTrue(
        got[0].first() < got[1].last() && got[1].first() < got[0].last(),
        "the two generations overlapped in time: " + List.of(got[0], got[1]));
  }

  @Test
  @Order(2)
  void aNonStreamedRequestWhoseClientLeftIsCancelledAndTheOtherSequenceIsWhole() throws Exception {
    String a = "The Debian package manager";
    int n = 64;
    String alone =
        text(ServeE2eTest.post(one.base(), "/v1/completions", completion(a, n, false), null));
    String[] beside = {null};
    Thread t =
        new Thread(
            () ->
                beside[0] =
                    call(
                        () ->
                            text(
                                ServeE2eTest.post(
                                    two.base(),
                                    "/v1/completions",
                                    completion(a, n, false),
                                    null))));
    t.start();
    try (java.net.Socket sock =
        ServeE2eTest.rawPost(two.base(), "/v1/completions", completion("Gone", 200, false))) {
      BufferedReader r =
          new BufferedReader(new InputStreamReader(sock.getInputStream(), StandardCharsets.UTF_8));
      String status = r.readLine();
      assertTrue(status != null && status.contains(" 200 "), "generation started: " + status);
    } // the client goes away once its generation has started
    assertTrue(ServeE2eTest.cancelledAfter(two, 0) < 200, "the generation stopped early");
    t.join(120_000);
    assertEquals(alone, beside[0], "the other sequence's request: whole, its own text");
    HttpResponse<String> after =
        ServeE2eTest.post(two.base(), "/v1/completions", completion(a, 16, false), null);
    assertEquals(200, after.statusCode(), after.body());
    assertEquals(
        16, ServeE2eTest.JSON.readTree(after.body()).get("usage").get("completion_tokens").asInt());
  }

  @Test
  @Order(3)
  void anNThePlanCannotHoldIsRefusedNamingTheFigures() throws Exception {
    ModelGeometry g = GgufReader.readModel(model).geometry();
    KvDecision.Accepted kv =
        (KvDecision.Accepted) KvRules.decide(Backend.CPU_REFERENCE, null, Map.of());
    // resident: a dense model's plan is then weights + KV + scratch (no page-cache headroom)
    PlanRequest r =
        PlanRequest.of(E2e.here(), g, Backend.CPU_REFERENCE)
            .withContext(CTX)
            .withKv(kv)
            .withExperts(ExpertsMode.RESIDENT);
    MemoryPlan p1 = MemoryPlan.compute(r);
    // a budget that holds the model, its scratch and about three sequences' pools
    long mb =
        Math.ceilDiv(p1.denseBytes() + p1.scratchBytes() + 3 * p1.kv().bytes(), UsableMemory.MIB);
    int fits = 0;
    for (int m = 1; m <= 64; m++) {
      if (MemoryPlan.compute(r.withMemBudgetMb(mb).withParallel(m)).fits()) {
        fits = m;
      }
    }
    assertTrue(fits >= 2 && fits < 64, "the budget holds a few sequences: " + fits);
    Path cfg =
        ServeE2eTest.tinyConfig(
            dir.resolve("budget.yaml"),
            model,
            "--experts",
            "resident",
            "--mem-budget-mb",
            Long.toString(mb));
    E2e.Result refused =
        E2e.launch("--config", cfg.toString(), "--serve", "--port", "0", "--parallel", "64");
    assertEquals(3, refused.code(), refused.err());
    assertTrue(
        refused.err().contains("--parallel 64 holds 64 sequences' KV pools, 64 × "), refused.err());
    assertTrue(refused.err().contains("--parallel " + fits + " fits"), refused.err());
    assertFalse(refused.err().contains("serving "), "nothing was served");
  }

  @Test
  @Order(4)
  void loadEightClientsTwentyRequestsEachAllAnsweredOnceWithinThePlan() throws Exception {
    String out = System.getenv("STRATA_BENCH_OUT");
    Path results =
        out != null && !out.isBlank()
            ? Path.of(out)
            : RepoRoot.path().resolve("tests/target/serve-load");
    Files.createDirectories(results);
    for (ServeE2eTest.Server s : List.of(one, two)) {
      int parallel = s == one ? 1 : 2;
      String doc = load(s, parallel);
      Matcher m = MEMORY.matcher(s.err());
      assertTrue(m.find(), "the memory line: " + s.err());
      long start = Long.parseLong(m.group(1));
      long allocated = Long.parseLong(m.group(2));
      long peak = peakRss(s.process().pid());
      s.close();
      long added = peak - start;
      String memory =
          String.format(
              Locale.ROOT,
              ", \"peak_rss_bytes\": %d, \"start_rss_bytes\": %d, \"allocated_bytes\": %d,"
                  + " \"added_bytes\": %d, \"added_over_allocated\": %.4f}%n",
              peak,
              start,
              allocated,
              added,
              (double) added / allocated);
      doc = doc.substring(0, doc.lastIndexOf('}')) + memory;
      Files.writeString(results.resolve("load-parallel" + parallel + ".json"), doc);
      System.out.println("serve load: " + doc);
      if (peak > 0 && start > 0) {
        // and at least the weights, which every forward pass reads (mapped: resident once read)
        long weights =
            Long.parseLong(WEIGHTS.matcher(s.err()).results().findFirst().orElseThrow().group(1));
        assertTrue(added >= weights * 9 / 10, "the weights are in the process: " + doc);
        assertTrue(
            added <= allocated + JVM_ALLOWANCE,
            "serving added "
                + added
                + " B to the process; the plan's items are "
                + allocated
                + " B (+ "
                + JVM_ALLOWANCE
                + " B for the JVM's serving code): "
                + doc);
      }
    }
  }

  /** The peak resident set of process {@code pid} ({@code VmHWM}, bytes), or -1 off Linux. */
  static long peakRss(long pid) {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (l.startsWith("VmHWM:")) {
          return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException e) {
      // not Linux
    }
    return -1;
  }

  /** The load; returns its figures as one JSON object (no memory yet). */
  static String load(ServeE2eTest.Server server, int parallel) throws Exception {
    int clients = 8;
    int each = 20;
    int maxTokens = 4;
    ConcurrentLinkedQueue<long[]> done = new ConcurrentLinkedQueue<>(); // status, nanos, tokens
    Set<String> ids = Collections.synchronizedSet(new HashSet<>());
    AtomicInteger duplicates = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int c = 0; c < clients; c++) {
      int client = c;
      Thread t =
          new Thread(
              () -> {
                for (int i = 0; i < each; i++) {
                  String body =
                      completion("Request " + client + "-" + i + ": the package", maxTokens, false);
                  long s = System.nanoTime();
                  try {
                    HttpResponse<String> r =
                        ServeE2eTest.post(server.base(), "/v1/completions", body, null);
                    long ns = System.nanoTime() - s;
                    int tokens = 0;
                    if (r.statusCode() == 200) {
                      JsonNode j = ServeE2eTest.JSON.readTree(r.body());
                      if (!ids.add(j.get("id").asText())) {
                        duplicates.incrementAndGet();
                      }
                      tokens = j.get("usage").get("completion_tokens").asInt();
                    } else if (r.statusCode() != 503
                        || r.headers().firstValue("Retry-After").isEmpty()) {
                      failures.incrementAndGet();
                    }
                    done.add(new long[] {r.statusCode(), ns, tokens});
                  } catch (Exception e) {
                    failures.incrementAndGet();
                  }
                }
              });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join(TimeUnit.MINUTES.toMillis(4));
      assertFalse(t.isAlive(), "the load test stops by itself");
    }
    double wall = (System.nanoTime() - t0) / 1e9;
    assertEquals(0, failures.get(), "every request answered 200 or 503 with Retry-After");
    assertEquals(clients * each, done.size(), "none lost");
    assertEquals(0, duplicates.get(), "none answered twice");
    long ok = done.stream().filter(d -> d[0] == 200).count();
    long busy = done.stream().filter(d -> d[0] == 503).count();
    assertEquals(ids.size(), ok);
    assertTrue(ok > 0);
    long[] lat = done.stream().filter(d -> d[0] == 200).mapToLong(d -> d[1]).sorted().toArray();
    long tokens = done.stream().mapToLong(d -> d[2]).sum();
    double p50 = lat[(int) Math.floor(0.50 * (lat.length - 1))] / 1e6;
    double p99 = lat[(int) Math.floor(0.99 * (lat.length - 1))] / 1e6;
    String loadavg = "";
    try {
      loadavg = Files.readString(Path.of("/proc/loadavg")).strip();
    } catch (IOException e) {
      // not Linux
    }
    return String.format(
        Locale.ROOT,
        "{\"parallel\": %d, \"clients\": %d, \"requests_per_client\": %d, \"max_tokens\": %d,"
            + " \"ok\": %d, \"busy_503\": %d, \"lost\": 0, \"duplicates\": 0, \"p50_ms\": %.1f,"
            + " \"p99_ms\": %.1f, \"wall_seconds\": %.2f, \"completion_tokens\": %d,"
            + " \"aggregate_tok_s\": %.1f, \"model\": \"tiny-qwen3-q8_0\", \"ctx\": %d,"
            + " \"loadavg\": \"%s\"}",
        parallel,
        clients,
        each,
        maxTokens,
        ok,
        busy,
        p50,
        p99,
        wall,
        tokens,
        tokens / wall,
        CTX,
        loadavg);
  }

  @FunctionalInterface
  interface Call<T> {
    T call() throws Exception;
  }

  static <T> T call(Call<T> c) {
    try {
      return c.call();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
