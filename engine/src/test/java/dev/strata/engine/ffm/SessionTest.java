package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strata.testsupport.RepoRoot;
import dev.strata.testsupport.SharedData;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ABI 3 through the real strata-ref and a real model (tiny-qwen3-q8_0 of the shared data): open,
 * tokenize, evaluate, sample, detokenize, cancel, stats — the Java binding {@link Session} against
 * the engine, no mocks.
 */
class SessionTest {
  static final Path ROOT = RepoRoot.path();
  static NativeEngine engine;
  static Path model;

  @BeforeAll
  static void load() {
    model = SharedData.resolve("models/tiny-qwen3-q8_0.gguf").orElse(null);
    assumeTrue(model != null && Files.isRegularFile(model), SharedData.WHY_NOT);
    engine = NativeEngine.load(NativeEngine.defaultLibrary(ROOT));
  }

  @AfterAll
  static void close() {
    if (engine != null) {
      engine.close();
    }
  }

  static final class Lines implements LogSink {
    final List<String> lines = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void line(LogLevel level, String line) {
      lines.add(level + " " + line);
    }
  }

  /** A session on the model; main's own workload flags kept small (they must fit the pool). */
  static Session open(Lines lines) {
    return open(lines, 256);
  }

  static Session open(Lines lines, int ctx) {
    return engine.openSession(args(ctx), lines);
  }

  static List<String> args(int ctx) {
    return List.of(
        "--model",
        model.toString(),
        "--ctx",
        Integer.toString(ctx),
        "--prompt-tokens",
        "16",
        "--n-predict",
        "16");
  }

  /** Greedy continuation of {@code prompt}: the ids made. */
  static int[] greedy(Session s, String prompt, int n) {
    int[] ids = s.tokenize(prompt, Session.ADD_SPECIAL | Session.PARSE_SPECIAL);
    Logits l = s.eval(0, ids, ids.length - 1);
    int[] out = new int[n];
    long[] rng = {1};
    for (int i = 0; i < n; i++) {
      out[i] = s.sample(l, 0, 0f, 0, 1f, rng);
      l = s.eval(0, new int[] {out[i]}, 0);
    }
    return out;
  }

  @Test
  void aSavedSequenceLoadsIntoAFreshSessionAndContinuesAsIfUninterrupted(@TempDir Path dir) {
    Path file = dir.resolve("conversation.snap");
    String prompt = "Once upon a time";
    int[] uninterrupted;
    try (Session s = open(new Lines())) {
      uninterrupted = greedy(s, prompt, 12);
    }
    int[] held;
    try (Session s = open(new Lines())) {
      assertTrue(s.hasSnapshots());
      greedy(s, prompt, 4);
      held = s.tokens(0);
      assertEquals(s.nPast(0), held.length);
      s.save(0, file);
    }
    try (Session s = open(new Lines())) {
      s.load(0, file);
      assertArrayEquals(held, s.tokens(0));
      int n = s.nPast(0);
      s.truncate(0, n - 1); // the last position again, for its logits
      Logits l = s.eval(0, new int[] {held[n - 1]}, 0);
      long[] rng = {1};
      for (int i = 4; i < 12; i++) {
        int t = s.sample(l, 0, 0f, 0, 1f, rng);
        assertEquals(uninterrupted[i], t, "token " + i + " after the load");
        l = s.eval(0, new int[] {t}, 0);
      }
    }
    // another KV format is refused with the engine's one line and code 3; the sequence is kept
    Lines lines = new Lines();
    List<String> q4 = new ArrayList<>(args(256));
    q4.addAll(List.of("--kv", "q4_0"));
    try (Session s = engine.openSession(q4, lines)) {
      greedy(s, prompt, 1);
      int before = s.nPast(0);
      SessionException e = assertThrows(SessionException.class, () -> s.load(0, file));
      assertEquals(3, e.exitCode());
      assertEquals(before, s.nPast(0));
      String want =
          "ERROR snapshot: "
              + file
              + " holds KV format int8 (tag 1); this session's pools are q4_0 (tag 2)";
      assertTrue(lines.lines.contains(want), String.join("\n", lines.lines));
      SessionException missing =
          assertThrows(SessionException.class, () -> s.load(0, dir.resolve("none.snap")));
      assertEquals(2, missing.exitCode());
    }
  }

  @Test
  void speaksAbi3AndDescribesTheModel() {
    assertEquals(3, engine.abiVersion());
    assertTrue(engine.hasSessions());
    Lines lines = new Lines();
    try (Session s = open(lines)) {
      assertEquals(8192, s.nVocab());
      assertEquals(256, s.nCtx());
      assertEquals(1, s.nSeq());
      assertEquals(0, s.token(Session.EOS), "id 0 <|endoftext|> is EOS");
      assertTrue(s.isEog(0));
      assertFalse(s.isEog(100));
      assertEquals("qwen3", s.meta("general.architecture").orElseThrow());
      assertTrue(s.meta("no.such.key").isEmpty());
      assertEquals(0, s.nPast(0));
    }
    assertTrue(
        lines.lines.stream().anyMatch(l -> l.startsWith("INFO alloc: item=kv bytes=")),
        String.join("\n", lines.lines));
  }

  @Test
  void tokensAndPiecesRoundTripTheText() {
    String text = "The kernel's scheduler — “naïve” 日本語 text.";
    try (Session s = open(new Lines())) {
      int[] ids = s.tokenize(text, 0);
      assertTrue(ids.length > 5);
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      for (int id : ids) {
        b.writeBytes(s.tokenPiece(id));
      }
      assertEquals(text, b.toString(StandardCharsets.UTF_8));
      assertThrows(IllegalArgumentException.class, () -> s.tokenPiece(8192));
      // a long text grows the token buffer
      String many = " word".repeat(3000);
      assertEquals(3000, s.tokenize(many, 0).length);
    }
  }

  @Test
  void greedyGenerationIsDeterministicAndTruncateRewinds() {
    try (Session s = open(new Lines())) {
      int[] a = greedy(s, "The Linux kernel", 8);
      int past = s.nPast(0);
      assertTrue(past > 8, "positions held: " + past);
      s.truncate(0, 0);
      assertEquals(0, s.nPast(0));
      int[] b = greedy(s, "The Linux kernel", 8);
      assertArrayEquals(a, b);
      assertThrows(SessionException.class, () -> s.truncate(0, s.nPast(0) + 1));
      Map<String, String> stats = s.stats();
      assertTrue(Long.parseLong(stats.get("decode_tokens")) >= 16, stats.toString());
      assertTrue(stats.containsKey("peak_rss_bytes"), stats.toString());
    }
  }

  @Test
  void logitsRowsAreTheVocabulary() {
    try (Session s = open(new Lines())) {
      int[] ids = s.tokenize("def main():", 0);
      Logits l = s.eval(0, ids, 0);
      assertEquals(ids.length, l.rows());
      float[] last = l.row(ids.length - 1);
      assertEquals(8192, last.length);
      long[] rng = {42};
      int viaView = s.sample(l, ids.length - 1, 0f, 0, 1f, rng);
      assertEquals(viaView, s.sample(last, 0f, 0, 1f, rng));
      // sampled at a temperature: the state advances, and the same seed draws the same token
      long[] r1 = {7};
      long[] r2 = {7};
      assertEquals(
          s.sample(l, ids.length - 1, 0.8f, 40, 0.95f, r1),
          s.sample(l, ids.length - 1, 0.8f, 40, 0.95f, r2));
      assertTrue(r1[0] != 7);
      Logits later = s.eval(0, new int[] {viaView}, 0);
      assertThrows(IllegalStateException.class, () -> l.row(0), "an old view is refused");
      assertEquals(1, later.rows());
    }
  }

  @Test
  void badArgumentsAreTheEnginesCode2() {
    // main's workload flags, given, must fit the context (the engine's startup rule): 512 + 64 >
    // 256
    Lines refused = new Lines();
    SessionException tooBig =
        assertThrows(
            SessionException.class,
            () ->
                engine.openSession(
                    List.of(
                        "--model",
                        model.toString(),
                        "--ctx",
                        "256",
                        "--prompt-tokens",
                        "512",
                        "--n-predict",
                        "64"),
                    refused));
    assertEquals(2, tooBig.exitCode());
    assertTrue(
        refused.lines.stream().anyMatch(l -> l.startsWith("ERROR") && l.contains("exceed")),
        String.join("\n", refused.lines));
    Lines lines = new Lines();
    try (Session s = open(lines)) {
      SessionException e =
          assertThrows(SessionException.class, () -> s.eval(0, new int[] {9000}, 0));
      assertEquals(2, e.exitCode());
      assertTrue(
          lines.lines.stream().anyMatch(l -> l.contains("outside the vocabulary")),
          String.join("\n", lines.lines));
      assertEquals(
          2, assertThrows(SessionException.class, () -> s.eval(1, new int[] {1}, 0)).exitCode());
      assertEquals(0, s.nPast(0), "a refused eval keeps nothing");
    }
  }

  @Test
  void aBadOpenIsTheEnginesCode() {
    Lines lines = new Lines();
    SessionException e =
        assertThrows(
            SessionException.class,
            () -> engine.openSession(List.of("--model", model.toString(), "--ctx", "x"), lines));
    assertEquals(2, e.exitCode());
    assertTrue(
        lines.lines.stream().anyMatch(l -> l.startsWith("ERROR") && l.contains("--ctx")),
        String.join("\n", lines.lines));
  }

  @Test
  void cancelFromAnotherThreadStopsAnEval() throws Exception {
    try (Session s = open(new Lines(), 4096)) {
      // a cancel while nothing runs is kept for the next eval
      s.cancel();
      assertTrue(
          assertThrows(SessionException.class, () -> s.eval(0, new int[] {1}, 0)).cancelled());
      int[] ids = new int[3000];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = 1 + i % 8000;
      }
      Thread t =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      TimeUnit.MILLISECONDS.sleep(300);
                    } catch (InterruptedException e) {
                      return;
                    }
                    s.cancel();
                  });
      long t0 = System.nanoTime();
      SessionException e = assertThrows(SessionException.class, () -> s.eval(0, ids, ids.length));
      t.join();
      assertTrue(e.cancelled(), e.getMessage());
      assertEquals(130, e.exitCode());
      assertEquals(0, s.nPast(0), "a cancelled eval keeps none of its tokens");
      assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(60));
      // the session goes on after a cancel
      s.eval(0, new int[] {1, 2}, 1);
      assertEquals(2, s.nPast(0));
    }
  }

  @Test
  void anAbi1EngineHasNoSessionsAndSaysSo() {
    Path abi1 = ROOT.resolve("engine/target/native/abi1/libstrata_ref.so");
    assumeTrue(Files.isRegularFile(abi1), "the ABI 1 test build");
    try (NativeEngine old = NativeEngine.load(abi1)) {
      assertFalse(old.hasSessions());
      assertEquals(
          "strata-launch --prompt: the engine libstrata_ref.so speaks ABI 1; generation needs ABI"
              + " 3 (a session API)",
          old.needsSessions("strata-launch --prompt", "generation"));
      EngineLoadException e =
          assertThrows(EngineLoadException.class, () -> old.openSession(List.of(), new Lines()));
      assertEquals(3, e.exitCode());
    }
  }

  @Test
  void theEngineRefusesToCloseUnderAnOpenSession() {
    try (NativeEngine e = NativeEngine.load(NativeEngine.defaultLibrary(ROOT))) {
      Session s = e.openSession(args(64), new Lines());
      assertThrows(IllegalStateException.class, e::close);
      s.close();
      s.close(); // twice: a no-op
      s.cancel(); // after close: a no-op
      assertThrows(IllegalStateException.class, s::nCtx);
    }
  }

  @Test
  void statsParseKeyValueWords() {
    assertEquals(Map.of("a", "1", "b", "2.5"), SessionCalls.statsWords(" a=1  b=2.5 junk "));
  }
}
