package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strata.testsupport.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the expert-arena tests share: the shared tiny qwen3moe Q8_0 (its experts weigh less than the
 * page-cache headroom, so the arena is sized with {@code STRATA_ARENA_BARE=1} and {@code
 * --mem-budget-mb}), strata-ref-run's workload on it, and the budget that gives the arena a number
 * of slots.
 */
final class ArenaRuns {
  private ArenaRuns() {}

  private static final Pattern ALLOC = Pattern.compile("alloc: item=(\\w+) bytes=(\\d+)");

  /** The shared tiny qwen3moe Q8_0; the test is skipped where the shared models are not. */
  static Path tinyMoe() {
    Optional<Path> shared = SharedData.resolve("models");
    assumeTrue(shared.isPresent() && Files.isDirectory(shared.get()), SharedData.WHY_NOT);
    return shared.get().resolve("tiny-qwen3moe-q8_0.gguf");
  }

  /**
   * The bytes of a run's {@code alloc:} lines but the arena's: what the budget holds besides it.
   */
  static long fixedBytes(List<String> lines) {
    long fixed = 0;
    for (String l : lines) {
      Matcher m = ALLOC.matcher(l);
      if (m.matches() && !m.group(1).equals("arena")) {
        fixed += Long.parseLong(m.group(2));
      }
    }
    return fixed;
  }

  /** The --mem-budget-mb, rounded up to the MiB, of {@code fixed} bytes and {@code slots} slots. */
  static long budgetMb(long fixed, long slots, long slotBytes) {
    return (fixed + slots * slotBytes + (1 << 20) - 1) >> 20;
  }

  /**
   * strata-ref-run's workload ({@code --ctx 512 --threads 1}, {@code prompt} tokens, {@code
   * predict} decoded) with {@code STRATA_ARENA_BARE=1}, the arena policy, and the router traced to
   * {@code trace} (null: not traced); it must exit 0.
   *
   * @param budgetMb the --mem-budget-mb, or 0 for none (every expert held)
   * @return the run's lines
   */
  static List<String> run(
      Path model, int prompt, int predict, long budgetMb, String policy, Path trace)
      throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--ctx",
                "512",
                "--threads",
                "1",
                "--prompt-tokens",
                Integer.toString(prompt),
                "--n-predict",
                Integer.toString(predict)));
    if (budgetMb > 0) {
      args.addAll(List.of("--mem-budget-mb", Long.toString(budgetMb)));
    }
    Map<String, String> env = new HashMap<>();
    env.put("STRATA_ARENA_BARE", "1");
    env.put("STRATA_ARENA_POLICY", policy);
    if (trace != null) {
      env.put("STRATA_ARENA_TRACE", trace.toString());
    }
    RefRun r = RefRun.of("run", model, args, env);
    assertEquals(0, r.code(), r.text());
    return r.lines();
  }
}
