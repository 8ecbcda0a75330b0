package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strata.testsupport.SharedData;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The plan is what the engine holds: on the real shared models, with every cell of the pools
 * written (prompt + decode = ctx + 128 positions), the memory the engine's run added to its process
 * (peak resident set minus the resident set before the engine held anything, both from
 * /proc/self/status) is within 5 % of the sum of the plan's items (weights mapped and touched, KV
 * pools, arena, scratch) — resident and streamed. Run through the C driver, not a JVM, so the
 * process's memory is the engine's. What the plan does not count is a fixed 1.5–1.8 MB measured
 * here (the engine's code pages, the tokenizer's tables, the C runtime): at ctx 2048 the plans are
 * 45–58 MB and the runs measured +2.8 % to +4.3 % (docs/PLAN.md); a smaller plan (q4_0 pools at ctx
 * 1024: +6.2 %) would be over 5 % for that fixed part alone.
 */
@EnabledOnOs(OS.LINUX)
class RssWithinPlanE2eTest {
  private static final Pattern MEMORY =
      Pattern.compile(
          "memory: peak_rss_bytes=(\\d+) allocated_bytes=(\\d+) start_rss_bytes=(\\d+)");

  @ParameterizedTest(name = "{0} --experts {1} --kv {2}")
  @CsvSource({
    "tiny-qwen3-q8_0, resident, fp16",
    "tiny-qwen3-q4_k_m, resident, fp16",
    "tiny-qwen3moe-q8_0, resident, fp16",
    "tiny-qwen3moe-q8_0, stream, fp16"
  })
  void theEnginesMemoryIsThePlanWithinFivePercent(String model, String experts, String kv)
      throws Exception {
    assumeTrue(SharedData.dir().isPresent(), SharedData.WHY_NOT);
    Path file = SharedData.resolve("models/" + model + ".gguf").orElseThrow();
    int ctx = 4096;
    RefRun r =
        RefRun.of(
            "run",
            file,
            List.of(
                "--ctx",
                Integer.toString(ctx),
                "--experts",
                experts,
                "--kv",
                kv,
                "--threads",
                "2",
                "--prompt-tokens",
                Integer.toString(ctx + 128 - 16),
                "--n-predict",
                "16"),
            Map.of());
    String out = r.text();
    assertEquals(0, r.code(), out);
    Matcher m = MEMORY.matcher(out);
    assertTrue(m.find(), out);
    long peak = Long.parseLong(m.group(1));
    long allocated = Long.parseLong(m.group(2));
    long start = Long.parseLong(m.group(3));
    long engine = peak - start;
    double ratio = (double) engine / allocated;
    assertTrue(
        Math.abs(ratio - 1.0) <= 0.05,
        "the engine added "
            + engine
            + " B to its process, the plan's items are "
            + allocated
            + " B: "
            + ratio
            + "\n"
            + out);
  }
}
