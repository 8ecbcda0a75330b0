package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.DemoModel;
import dev.strata.engine.model.TinyModel;
import dev.strata.kernels.KvReference;
import dev.strata.kernels.RecordFormat;
import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** strata-ref through the real library and NativeEngine (no mocks). */
class NativeEngineTest {
  static final Path ROOT = RepoRoot.path();
  static final Path NATIVE = ROOT.resolve("engine/target/native");

  @TempDir static Path dir;
  static NativeEngine engine;
  static Path model;

  @BeforeAll
  static void load() throws IOException {
    engine = NativeEngine.load(NativeEngine.defaultLibrary(ROOT));
    // a model strata-ref computes with the seed's KV pools (12 attention layers of 2 x 256): the
    // seed geometry itself (qwen3next) is a planning model it refuses
    model = TinyModel.seedAttention().write(dir, "seed", 4, 7).getFirst();
  }

  @AfterAll
  static void close() {
    engine.close();
  }

  /** A thread-safe sink that keeps every line. */
  static final class Lines implements LogSink {
    final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    final List<LogLevel> levels = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void line(LogLevel level, String line) {
      lines.add(line);
      levels.add(level);
    }

    boolean has(String line) {
      return lines.contains(line);
    }

    String startingWith(String prefix) {
      synchronized (lines) {
        return lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElse("(none)");
      }
    }
  }

  private static int run(Lines sink, String... args) {
    return engine.run(List.of(args), sink);
  }

  /** A one-token run of {@code model} with these pools: the flags most runs here share. */
  private static int oneToken(Lines sink, String model, String ctx, String kv, String prompt) {
    return run(
        sink,
        "--model",
        model,
        "--ctx",
        ctx,
        "--kv",
        kv,
        "--prompt-tokens",
        prompt,
        "--n-predict",
        "1");
  }

  @Test
  void nameAndAbi() {
    assertEquals("strata-ref 0.1.0 (cpu)", engine.name());
    assertEquals(3, engine.abiVersion());
    assertEquals(NativeEngine.ABI_VERSION, engine.abiVersion());
    assertTrue(engine.hasCheck());
    assertTrue(engine.hasSessions());
  }

  @Test
  void poolsAt32kHaveThePinnedSizes() {
    Lines int8 = new Lines();
    String m = model.toString();
    assertEquals(
        0, run(int8, "--model", m, "--ctx", "32768", "--prompt-tokens", "8", "--n-predict", "1"));
    assertTrue(
        int8.has("kv: format=int8 cell_bytes=1056 layers=12 cells=32896 bytes=416858112"),
        int8.lines::toString);
    Lines q4 = new Lines();
    assertEquals(0, oneToken(q4, m, "32768", "q4_0", "8"));
    assertTrue(
        q4.has("kv: format=q4_0 cell_bytes=576 layers=12 cells=32896 bytes=227377152"),
        q4.lines::toString);
    assertTrue(
        q4.startingWith("decode: tokens=1 seconds=")
            .matches("decode: tokens=1 seconds=\\d+\\.\\d{3} tok_s=\\d+\\.\\d"));
    assertTrue(q4.startingWith("checksum: ").startsWith("checksum: fnv1a64="));
    // the same tokens on other pools give other logits: each run computes on the pools it names
    // (the greedy ids, main's checksum, may well agree: a real model's top-1 seldom moves)
    assertFalse(Arrays.equals(logits(m, "int8"), logits(m, "q4_0")));
  }

  /** The last row of logits of a few tokens through a session on pools of this format. */
  private static float[] logits(String model, String kv) {
    List<String> args =
        List.of(
            "--model",
            model,
            "--ctx",
            "64",
            "--kv",
            kv,
            "--prompt-tokens",
            "1",
            "--n-predict",
            "0");
    try (Session s = engine.openSession(args, new Lines())) {
      int[] ids = {11, 22, 33, 44, 55, 66, 77, 88};
      return s.eval(0, ids, ids.length - 1).row(0);
    }
  }

  @Test
  void readsTheModelsTheJavaWriterWrites() throws IOException {
    for (int shards : new int[] {1, 4}) {
      Path d = Files.createDirectories(dir.resolve("seed" + shards));
      List<Path> files = TinyModel.seedAttention().write(d, "m", shards, 5);
      Lines l = new Lines();
      int rc = oneToken(l, files.get(0).toString(), "32768", "q4_0", "4");
      assertEquals(0, rc, l.lines::toString);
      assertTrue(
          l.has("kv: format=q4_0 cell_bytes=576 layers=12 cells=32896 bytes=227377152"),
          l.lines::toString);
      assertTrue(l.startingWith("model: ").endsWith("shards=" + shards), l.lines::toString);
      // the seed geometry (DemoModel, qwen3next): the engine reads its header as Java does, then
      // refuses the architecture it does not compute, in one line naming the file (exit 3)
      Path demo = Files.createDirectories(dir.resolve("demo" + shards));
      List<Path> seed = DemoModel.write(demo, shards);
      Lines s = new Lines();
      assertEquals(
          ExitCodes.PREFLIGHT,
          oneToken(s, seed.get(0).toString(), "32768", "q4_0", "4"),
          s.lines::toString);
      assertEquals(
          "model: arch=qwen3next blocks=48 qsa_layers=12 kv_heads=2 head_dim=256 shards=" + shards,
          s.startingWith("model: arch="),
          s.lines::toString);
      assertEquals(
          "model: "
              + seed.get(0)
              + ": architecture qwen3next is not one strata-ref computes (it computes qwen3,"
              + " qwen3moe, qwen2, llama)",
          firstError(s));
    }
  }

  @Test
  void sameOutputsWhateverTheThreadCount() {
    String m = model.toString();
    Lines one = new Lines();
    Lines two = new Lines();
    String[] base = {
      "--model", m, "--ctx", "4096", "--kv", "q4_0", "--prompt-tokens", "3000", "--n-predict", "2"
    };
    List<String> a1 = new ArrayList<>(List.of(base));
    a1.addAll(List.of("--threads", "1"));
    List<String> a2 = new ArrayList<>(List.of(base));
    a2.addAll(List.of("--threads", "3"));
    assertEquals(0, engine.run(a1, one));
    assertEquals(0, engine.run(a2, two));
    assertEquals(one.startingWith("checksum: "), two.startingWith("checksum: "));
  }

  /**
   * strata-ref's fp16 pools are real fp16 (2,048 B per cell of 2 × 256: the quality reference the
   * other formats are measured against); the Metal engine runs --kv fp16 on its int8 pools and says
   * so, strata-ref has nothing to say.
   */
  @Test
  void fp16RunsOnRealFp16Pools() {
    Lines l = new Lines();
    assertEquals(0, oneToken(l, model.toString(), "32768", "fp16", "4"));
    assertTrue(
        l.has("kv: format=fp16 cell_bytes=2048 layers=12 cells=32896 bytes=808452096"),
        l.lines::toString);
    assertFalse(l.has(KvRules.FP16_ON_METAL_NOTE), l.lines::toString);
  }

  @Test
  void k8v4IsRefusedWithTheUpstreamText() {
    Lines l = new Lines();
    assertEquals(ExitCodes.PREFLIGHT, run(l, "--model", model.toString(), "--kv", "k8v4"));
    assertTrue(l.has(KvRules.K8V4_REFUSAL), l.lines::toString);
    assertEquals(LogLevel.ERROR, l.levels.get(l.lines.indexOf(KvRules.K8V4_REFUSAL)));
  }

  @Test
  void kvRotWithInt8IsRefusedAndANoOpWithQ4() {
    engine.setEnv(KvRules.KV_ROT_ENV, "1");
    try {
      Lines l = new Lines();
      assertEquals(ExitCodes.PREFLIGHT, run(l, "--model", model.toString(), "--kv", "int8"));
      assertTrue(l.has(KvRules.KV_ROT_INT8_REFUSAL), l.lines::toString);
      Lines q = new Lines();
      assertEquals(0, oneToken(q, model.toString(), "512", "q4_0", "4"));
    } finally {
      engine.unsetEnv(KvRules.KV_ROT_ENV);
    }
    Lines after = new Lines();
    assertEquals(0, oneToken(after, model.toString(), "512", "int8", "4"));
  }

  @Test
  void badFlagsAndModelsAreOneErrorLineAndExit2() throws IOException {
    Lines l = new Lines();
    assertEquals(ExitCodes.USAGE, run(l, "--model", model.toString(), "--ctx", "lots"));
    assertTrue(l.startingWith("flags: --ctx: bad value 'lots'").length() > 10, l.lines::toString);
    Lines u = new Lines();
    assertEquals(ExitCodes.USAGE, run(u, "--model", model.toString(), "--turbo"));
    assertTrue(u.startingWith("flags: unknown flag '--turbo'").length() > 10, u.lines::toString);
    Path text = Files.writeString(dir.resolve("readme.gguf"), "not a model\n");
    Lines t = new Lines();
    assertEquals(ExitCodes.USAGE, run(t, "--model", text.toString()));
    assertTrue(
        t.startingWith("model: " + text + ": not a GGUF file").length() > 10, t.lines::toString);
  }

  @Test
  void cancelFromAnotherThreadReturns130() throws Exception {
    Lines lines = new Lines();
    CountDownLatch started = new CountDownLatch(1);
    LogSink sink =
        (level, line) -> {
          lines.line(level, line);
          if (line.startsWith("kv: format=")) {
            started.countDown();
          }
        };
    AtomicInteger rc = new AtomicInteger(-1);
    Thread t =
        Thread.ofPlatform()
            .start(
                () ->
                    rc.set(
                        engine.run(
                            List.of(
                                "--model",
                                model.toString(),
                                "--ctx",
                                "262144",
                                "--prompt-tokens",
                                "262144",
                                "--n-predict",
                                "128",
                                "--threads",
                                "2"),
                            sink)));
    assertTrue(started.await(60, TimeUnit.SECONDS), lines.lines::toString);
    engine.cancel();
    t.join();
    assertEquals(ExitCodes.INTERRUPTED, rc.get(), lines.lines::toString);
    assertTrue(lines.has("cancelled: stopping (exit 130)"));
  }

  @Test
  void aThrowingSinkNeverReachesNativeCode() {
    AtomicInteger calls = new AtomicInteger();
    LogSink bad =
        (level, line) -> {
          calls.incrementAndGet();
          throw new IllegalStateException("sink broke");
        };
    int rc =
        engine.run(
            List.of(
                "--model",
                model.toString(),
                "--ctx",
                "512",
                "--prompt-tokens",
                "4",
                "--n-predict",
                "1"),
            bad);
    assertEquals(0, rc);
    assertEquals(1, calls.get(), "later lines of the run are dropped after the first failure");
    assertEquals("sink broke", engine.lastSinkFailure().orElseThrow().getMessage());
  }

  @Test
  void cellBytesFollowKvFormat() {
    for (KvFormat f : KvFormat.values()) {
      assertEquals(f.cellBytes(2, 256), engine.cellBytes(f, 2, 256), f.flagName());
    }
    assertEquals(816, engine.cellBytes(KvFormat.K8V4, 2, 256));
    assertThrows(IllegalArgumentException.class, () -> engine.cellBytes(KvFormat.Q4_0, 2, 128));
  }

  @Test
  void encodeDecodeRoundTripsWithinEachFormatsError() {
    Random r = new Random(7);
    float[] x = new float[4 * 256];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) r.nextGaussian();
    }
    for (KvFormat f : List.of(KvFormat.FP16, KvFormat.INT8, KvFormat.Q4_0)) {
      byte[] rec = engine.encode(f, x, 256);
      assertEquals(4 * f.kRecordBytes(256), rec.length, f.flagName());
      float[] y = engine.decode(f, rec, 256);
      double err = 0;
      double norm = 0;
      for (int i = 0; i < x.length; i++) {
        err += (x[i] - y[i]) * (double) (x[i] - y[i]);
        norm += x[i] * (double) x[i];
      }
      double rel = Math.sqrt(err / norm);
      double bound = f == KvFormat.FP16 ? 1e-3 : f == KvFormat.INT8 ? 0.02 : 0.15;
      assertTrue(rel < bound, f.flagName() + " relative error " + rel);
    }
    assertThrows(IllegalArgumentException.class, () -> engine.encode(KvFormat.K8V4, x, 256));
    assertThrows(
        IllegalArgumentException.class, () -> engine.encode(KvFormat.Q4_0, new float[128], 128));
  }

  @Test
  void encodeDecodeThroughFfmEqualTheJavaKernelsReferenceBitForBit() {
    Random r = new Random(11);
    float[] x = new float[8 * 256];
    for (int i = 0; i < x.length; i++) {
      // heavy tails and exact zeros, where rounding rules show
      x[i] = i % 97 == 0 ? 0f : (float) (r.nextGaussian() * (i % 13 == 0 ? 20 : 1));
    }
    for (RecordFormat rf : RecordFormat.values()) {
      KvFormat f = KvFormat.fromName(rf.label());
      byte[] viaFfm = engine.encode(f, x, 256);
      byte[] reference = KvReference.encode(rf, x, 8, 256);
      assertArrayEquals(reference, viaFfm, f.flagName() + " records");
      float[] back = engine.decode(f, reference, 256);
      float[] refBack = KvReference.decode(rf, reference, 8, 256);
      assertArrayEquals(refBack, back, f.flagName() + " decoded values");
    }
  }

  @Test
  void setEnvRefusesBadNames() {
    assertThrows(IllegalArgumentException.class, () -> engine.setEnv("A=B", "1"));
    assertThrows(IllegalArgumentException.class, () -> engine.setEnv("A\0B", "1"));
    assertThrows(IllegalArgumentException.class, () -> engine.setEnv("", "1"));
    assertThrows(IllegalArgumentException.class, () -> engine.setEnv("OK", "a\0b"));
    assertThrows(IllegalArgumentException.class, () -> engine.unsetEnv("A=B"));
  }

  @Test
  void aMissingLibraryIsExit3() {
    Path missing = dir.resolve("libnothing.so");
    EngineLoadException e =
        assertThrows(EngineLoadException.class, () -> NativeEngine.load(missing));
    assertEquals(ExitCodes.PREFLIGHT, e.exitCode());
    assertTrue(e.getMessage().startsWith("engine library not found: " + missing), e.getMessage());
  }

  @Test
  void aTextFileIsNotALibrary() throws IOException {
    Path text = Files.writeString(dir.resolve("libtext.so"), "hello\n");
    EngineLoadException e = assertThrows(EngineLoadException.class, () -> NativeEngine.load(text));
    assertEquals(ExitCodes.PREFLIGHT, e.exitCode());
    assertTrue(e.getMessage().contains("is not a shared library"), e.getMessage());
    Path elfNoise = dir.resolve("libnoise.so");
    byte[] noise = new byte[4096];
    new Random(1).nextBytes(noise);
    System.arraycopy(new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1}, 0, noise, 0, 7);
    Files.write(elfNoise, noise);
    EngineLoadException n =
        assertThrows(EngineLoadException.class, () -> NativeEngine.load(elfNoise));
    assertEquals(ExitCodes.PREFLIGHT, n.exitCode());
    dev.strata.engine.StrataException d =
        assertThrows(dev.strata.engine.StrataException.class, () -> NativeEngine.load(dir));
    assertEquals(ExitCodes.PREFLIGHT, d.exitCode());
    assertTrue(d.getMessage().contains("is a folder, not a regular file"), d.getMessage());
  }

  @Test
  void aTruncatedLibraryCannotBeLoaded() throws IOException {
    byte[] whole = Files.readAllBytes(engine.path());
    Path cut = dir.resolve("libtruncated.so");
    Files.write(cut, java.util.Arrays.copyOf(whole, 600));
    EngineLoadException e = assertThrows(EngineLoadException.class, () -> NativeEngine.load(cut));
    assertEquals(ExitCodes.PREFLIGHT, e.exitCode());
    // checked before dlopen: glibc's loader dies of SIGBUS on a truncated ELF
    assertTrue(
        e.getMessage().startsWith("engine library " + cut + " is truncated or damaged: "),
        e.getMessage());
    assertTrue(!e.getMessage().contains("\n"));
  }

  /**
   * Loads the test library built beside strata-ref as {@code strata_ref} renamed {@code name}:
   * refused with exit 3; returns the message.
   */
  private String refusedSibling(String name) {
    Path lib = NATIVE.resolve(engine.path().getFileName().toString().replace("strata_ref", name));
    EngineLoadException e = assertThrows(EngineLoadException.class, () -> NativeEngine.load(lib));
    assertEquals(ExitCodes.PREFLIGHT, e.exitCode());
    return e.getMessage();
  }

  @Test
  void anAbi3LibraryWithoutTheSessionApiIsRefusedNamingTheSymbol() {
    String m = refusedSibling("strata_no_session");
    assertTrue(m.contains("lacks the symbol strata_session_open"), m);
  }

  @Test
  void anotherAbiVersionNamesBothVersions() {
    String m = refusedSibling("strata_abi_mismatch");
    assertTrue(m.contains("has ABI version 999, this launcher speaks ABI versions 1..3"), m);
  }

  @Test
  void aMissingSymbolIsNamed() {
    String m = refusedSibling("strata_missing_symbol");
    assertTrue(m.contains("lacks the symbol strata_kv_decode"), m);
  }

  @Test
  void theCheckPlansWhatMainAllocatesAndAllocatesNothing() {
    Lines l = new Lines();
    String m = model.toString();
    // 1M cells × 12 layers would be 13 GB of pools: the check must not allocate them
    assertEquals(0, engine.check(List.of("--model", m, "--ctx", "1048576"), l), l.lines::toString);
    assertEquals("plan: item=kv bytes=13289177088", l.startingWith("plan: item=kv "));
    assertTrue(l.startingWith("plan: item=scratch bytes=").startsWith("plan: item=scratch"));
    Lines main = new Lines();
    assertEquals(0, run(main, "--model", m, "--ctx", "32768", "--prompt-tokens", "8"));
    Lines check = new Lines();
    assertEquals(
        0, engine.check(List.of("--model", m, "--ctx", "32768", "--prompt-tokens", "8"), check));
    // the check's kv item is main's kv: line, in the plan format
    assertTrue(main.has("kv: format=int8 cell_bytes=1056 layers=12 cells=32896 bytes=416858112"));
    assertEquals("plan: item=kv bytes=416858112", check.startingWith("plan: item=kv "));
  }

  @Test
  void theCheckReturnsWhatMainReturnsWithMainsFirstError() {
    String m = model.toString();
    List<List<String>> cases =
        List.of(
            List.of("--model", m, "--ctx", "\uff14\uff10\uff19\uff16"),
            List.of("--model", m, "--threads", "\u0662"),
            List.of("--model", m, "--ctx", " 64"),
            List.of("--model", m, "--ctx", "64", "--prompt-tokens", "150", "--n-predict", "43"),
            List.of("--model", m, "--kv", "k8v4"),
            List.of("--model", dir.resolve("absent.gguf").toString()),
            List.of("--model", m, "--kv", "int8", "--bogus"),
            List.of("--ctx", "64"));
    for (List<String> args : cases) {
      Lines c = new Lines();
      Lines r = new Lines();
      int checkRc = engine.check(args, c);
      int mainRc = engine.run(args, r);
      assertTrue(checkRc != 0, args::toString);
      assertEquals(mainRc, checkRc, args::toString);
      assertEquals(firstError(r), firstError(c), args::toString);
    }
  }

  /**
   * strata-ref words a binding --mem-budget-mb as the Java plan does (StreamSizing.advice): raise
   * or remove it, not "use a machine with more memory". 1 MiB is below any machine's stream plan,
   * so the flag binds whatever this machine has.
   */
  @Test
  void aBindingMemBudgetIsNamedByTheEngineToo() {
    Lines c = new Lines();
    List<String> args =
        List.of(
            "--model",
            model.toString(),
            "--ctx",
            "4096",
            "--experts",
            "stream",
            "--mem-budget-mb",
            "1");
    assertEquals(3, engine.check(args, c), c.lines::toString);
    String line = firstError(c);
    assertTrue(line.startsWith("stream: the expert arena cannot hold one token's experts"), line);
    assertTrue(line.contains(" GiB in the 0.00 GiB the engine may use; short by "), line);
    assertTrue(
        line.matches(
            ".*; the model does not fit even streamed at the smallest context within"
                + " --mem-budget-mb 1; raise or remove --mem-budget-mb \\(without it the engine"
                + " may use \\d+\\.\\d\\d GiB\\)"),
        line);
  }

  private static String firstError(Lines l) {
    synchronized (l.lines) {
      for (int i = 0; i < l.lines.size(); i++) {
        if (l.levels.get(i) == LogLevel.ERROR) {
          return l.lines.get(i);
        }
      }
    }
    return "(none)";
  }

  @Test
  void anAbi1LibraryStillLoadsAndHasNoCheck() throws IOException {
    Path lib = NATIVE.resolve("abi1").resolve(engine.path().getFileName());
    try (NativeEngine abi1 = NativeEngine.load(lib)) {
      assertEquals(1, abi1.abiVersion());
      assertTrue(!abi1.hasCheck());
      assertThrows(UnsupportedOperationException.class, () -> abi1.check(List.of(), new Lines()));
      Lines l = new Lines();
      assertEquals(
          0,
          abi1.run(
              List.of(
                  "--model",
                  model.toString(),
                  "--ctx",
                  "64",
                  "--prompt-tokens",
                  "8",
                  "--n-predict",
                  "1"),
              l),
          l.lines::toString);
    }
  }
}
