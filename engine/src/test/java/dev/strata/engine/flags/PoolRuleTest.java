package dev.strata.engine.flags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * strata-ref's pool rule (engine/native/src/startup.c): --ctx + 128 cells must hold --prompt-tokens
 * + --n-predict. One source: the flag table's parse (config reader and writer), the setup/demo
 * wording and the smallest context agree at the edge.
 */
class PoolRuleTest {
  private static final String M = "/m.gguf";

  @Test
  void theFlagTableRefusesOneCellMoreThanThePoolAndPointsAtTheContext() {
    // 448 + 128 = 576 = 512 + 64: exactly full is taken
    EngineFlags.parse(List.of("--model", M, "--ctx", "448"), Backend.CPU_REFERENCE);
    FlagException e =
        assertThrows(
            FlagException.class,
            () -> EngineFlags.parse(List.of("--model", M, "--ctx", "447"), Backend.CPU_REFERENCE));
    assertEquals(
        "--prompt-tokens 512 + --n-predict 64 exceed the pool's 575 cells (--ctx 447 + 128): lower"
            + " them, or raise --ctx",
        e.getMessage());
    assertEquals(3, e.place().argIndex(), "the --ctx value");
    FlagException noCtx =
        assertThrows(
            FlagException.class,
            () ->
                EngineFlags.parse(
                    List.of("--model", M, "--n-predict", "4000"), Backend.CPU_REFERENCE));
    assertEquals(-1, noCtx.place().argIndex(), "the default --ctx: the list as a whole");
    // only strata-ref runs a synthetic workload
    EngineFlags.parse(List.of("--model", M, "--ctx", "1"), Backend.METAL);
    EngineFlags.parse(List.of("--model", M, "--ctx", "1"), Backend.PC);
    EngineFlags.parse(List.of("--model", M, "--ctx", "1"), null);
    assertTrue(PoolRule.applies(Backend.CPU_REFERENCE));
    assertFalse(PoolRule.applies(Backend.METAL));
    assertFalse(PoolRule.applies(null));
  }

  @Test
  void theSmallestContextIsTheEdgeTheTableDraws() {
    for (long[] w : new long[][] {{512, 64}, {512, 8}, {1, 0}, {100, 28}, {129, 0}, {4000, 225}}) {
      long min = PoolRule.minContext(w[0], w[1]);
      assertNull(PoolRule.contextProblem(min, w[0], w[1]));
      List<String> at =
          List.of(
              "--model",
              M,
              "--ctx",
              Long.toString(min),
              "--prompt-tokens",
              Long.toString(w[0]),
              "--n-predict",
              Long.toString(w[1]));
      EngineFlags.parse(at, Backend.CPU_REFERENCE);
      if (min > 1) {
        List<String> below = new java.util.ArrayList<>(at);
        below.set(3, Long.toString(min - 1));
        assertThrows(FlagException.class, () -> EngineFlags.parse(below, Backend.CPU_REFERENCE));
        assertEquals(
            "--ctx "
                + (min - 1)
                + " is too small for strata-ref's workload (--prompt-tokens "
                + w[0]
                + " + --n-predict "
                + w[1]
                + " = "
                + (w[0] + w[1])
                + " tokens in a pool of --ctx + 128 cells): use --ctx "
                + min
                + " or more",
            PoolRule.contextProblem(min - 1, w[0], w[1]));
      }
    }
    assertEquals(1, PoolRule.minContext(1, 0));
    assertEquals(448, PoolRule.minContext(512, 64));
  }

  @Test
  void aWorkloadIsItsValuesOrTheTableDefaults() {
    long[] w = PoolRule.workload(Map.of());
    assertEquals(512, w[0]);
    assertEquals(64, w[1]);
    w = PoolRule.workload(Map.of(EngineFlags.N_PREDICT, "8"));
    assertEquals(512, w[0]);
    assertEquals(8, w[1]);
  }
}
