package dev.strata.tests.llamacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strata.testsupport.RepoRoot;
import dev.strata.testsupport.SharedData;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * strata-ref agrees with llama.cpp itself (node-llama-cpp 3.21.1's CPU build, pinned in
 * bench/llamacpp/package.json) on the same files and tokens: bench/llamacpp/agree.sh runs both
 * engines teacher-forced over 2,044 positions of val.u16 (llama-perplexity's layout; f16 KV in
 * llama.cpp, fp16 pools in strata-ref) and greedy over 5 prompts × 32 tokens, for the dense F16 and
 * the MoE Q8_0 and dense Q4_K_M shared models and two synthetic ones of the llama and qwen2
 * families (synth_model); the other quantized files run in agree.sh's full run
 * (bench/results/2026-12-02-agreement). The thresholds are issue 27's, met on every file
 * (docs/MODELS.md, "Agreement with llama.cpp"): F16 weights top-1 ≥ 99.9 %, mean KL ≤ 1e-4;
 * quantized weights top-1 ≥ 99 %, mean KL ≤ 1e-3 ({@link #MIN_TOP}). Greedy: every prompt's 32
 * tokens equal llama.cpp's, or they part at a near-tie (llama.cpp's top-2 log-prob gap below {@link
 * #NEAR_TIE}), which gen.tsv then shows.
 */
class LlamaCppAgreementTest {
  /**
   * Least same-top-1 share (%) per model: issue 27's bars. Measured 2026-12-02
   * (bench/results/2026-12-02-agreement) on an AVX-512 CPU, where strata-ref follows the float
   * operation order of the llama.cpp kernels that run there (docs/MODELS.md): 100.0 on every file.
   * The bars, not the measured 100, are the floors: on a CPU whose llama.cpp variant runs kernels
   * strata-ref does not mirror (e.g. AMX) the two engines again round their 8-bit activations
   * independently, which measured 97.8–99.3 % (bench/results/2026-12-01-agreement).
   */
  private static final Map<String, Double> MIN_TOP =
      Map.of(
          "tiny-qwen3-f16", 99.9,
          "synth-llama-f16", 99.9,
          "synth-qwen2-f16", 99.9,
          "tiny-qwen3-q8_0", 99.0,
          "tiny-qwen3-q4_k_m", 99.0,
          "tiny-qwen3moe-q8_0", 99.0,
          "tiny-qwen3moe-q4_k_m", 99.0);

  /**
   * A near-tie, in nats between llama.cpp's top two log-probs at the step where the tokens part:
   * llama.cpp's one-token decode path converts Q to f16 and sums the weighted V in f16 (ggml-cpu
   * ops.cpp, flash_attn_ext_f16_one_chunk), which moves logits by a few hundredths; a gap below
   * that is decided by rounding, not by the model.
   */
  private static final double NEAR_TIE = 0.05;

  private static Path out;
  private static final Map<String, Map<String, String>> ROWS = new HashMap<>();
  private static final Map<String, List<String[]>> GEN = new HashMap<>();

  @BeforeAll
  static void run() throws IOException, InterruptedException {
    assumeTrue(SharedData.dir().isPresent(), SharedData.WHY_NOT);
    assumeTrue(
        onPath("node") && onPath("npm"), "node and npm are needed for llama.cpp (node-llama-cpp)");
    Path root = RepoRoot.path();
    out = root.resolve("tests/target/llamacpp-agree");
    Files.createDirectories(out);
    ProcessBuilder pb =
        new ProcessBuilder(
                "bash",
                root.resolve("bench/llamacpp/agree.sh").toString(),
                out.toString(),
                // the suite's share (CI's 10 minutes): the strict F16 file, the MoE, one K-quant
                // dense file and the two families; the rest is bench/llamacpp/agree.sh's full run
                "tiny-qwen3-f16",
                "tiny-qwen3moe-q8_0",
                "tiny-qwen3-q4_k_m",
                "synth-llama-f16",
                "synth-qwen2-f16")
            .redirectErrorStream(true)
            .redirectOutput(out.resolve("agree.log").toFile());
    pb.environment().put(SharedData.ENV, SharedData.dir().orElseThrow().toString());
    Process p = pb.start();
    boolean done = p.waitFor(12, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly();
    }
    String log = Files.readString(out.resolve("agree.log"), StandardCharsets.UTF_8);
    assertTrue(done && p.exitValue() == 0, "agree.sh failed or hung:\n" + tail(log));
    List<String> lines = Files.readAllLines(out.resolve("summary.tsv"));
    String[] head = lines.get(0).split("\t");
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split("\t");
      Map<String, String> row = new HashMap<>();
      for (int i = 0; i < head.length; i++) {
        row.put(head[i], f[i]);
      }
      ROWS.put(f[0], row);
      List<String[]> gen = new ArrayList<>();
      for (String g : Files.readAllLines(out.resolve(f[0] + ".gen.tsv")).subList(1, 6)) {
        gen.add(g.split("\t", -1));
      }
      GEN.put(f[0], gen);
    }
  }

  @TestFactory
  Stream<DynamicTest> teacherForcedAgreement() {
    return Stream.of(
            "tiny-qwen3-f16",
            "tiny-qwen3moe-q8_0",
            "tiny-qwen3-q4_k_m",
            "synth-llama-f16",
            "synth-qwen2-f16")
        .map(
            name ->
                DynamicTest.dynamicTest(
                    name,
                    () -> {
                      Map<String, String> r = ROWS.get(name);
                      assertTrue(r != null, name + " ran (summary.tsv)");
                      boolean f16 = name.endsWith("f16");
                      double top = Double.parseDouble(r.get("same_top_pct"));
                      double kl = Double.parseDouble(r.get("mean_kld"));
                      int positions = Integer.parseInt(r.get("positions"));
                      double minTop = MIN_TOP.get(name);
                      double maxKl = f16 ? 1e-4 : 1e-3;
                      assertTrue(
                          positions >= (name.startsWith("synth") ? 1000 : 2000),
                          name + ": " + positions + " positions");
                      assertTrue(
                          top >= minTop && kl <= maxKl,
                          name
                              + ": same top-1 "
                              + top
                              + " % (need >= "
                              + minTop
                              + "), mean KL "
                              + kl
                              + " (need <= "
                              + maxKl
                              + ")");
                    }));
  }

  @TestFactory
  Stream<DynamicTest> greedyGenerationAgreement() {
    return ROWS.keySet().stream()
        .sorted()
        .map(
            name ->
                DynamicTest.dynamicTest(
                    name,
                    () -> {
                      for (String[] g : GEN.get(name)) {
                        int first = Integer.parseInt(g[1]);
                        if (first >= 0) {
                          double gap = g[2].isEmpty() ? Double.NaN : Double.parseDouble(g[2]);
                          assertTrue(
                              gap < NEAR_TIE,
                              name
                                  + ", prompt "
                                  + g[0]
                                  + ": the tokens part at "
                                  + first
                                  + " where llama.cpp's top-2 gap is "
                                  + gap
                                  + " (not a near-tie)");
                        }
                      }
                      assertEquals(5, GEN.get(name).size(), name + ": five prompts");
                    }));
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  private static String tail(String log) {
    return log.length() > 4000 ? log.substring(log.length() - 4000) : log;
  }
}
