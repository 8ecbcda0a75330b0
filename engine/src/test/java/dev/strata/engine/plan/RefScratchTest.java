package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.GIB;
import static dev.strata.engine.plan.Fixtures.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.engine.Backend;
import org.junit.jupiter.api.Test;

/**
 * strata-ref's working buffers (docs/PLAN.md; engine/native/src/forward.c and memory.c) worked by
 * hand. The seed (E 2048, Q 16 × 256 = 4096, KV 2 × 256 = 512, F 512, 512 experts, 10 used,
 * vocabulary 151,936) in batches of 32: activations 32 × (13 × 2048 + 8192 + 1024 + 1024 + 1024)
 * floats = 4,849,664 B (the MoE's 10 weighted expert outputs per token among them), quantized rows
 * 32 × 4096 × 4 = 524,288 B, router picks 32 × 10 × 8 = 2,560 B, one row of logits 607,744 B, the
 * arena's books 24,576 slots × 16 = 393,216 B.
 */
class RefScratchTest {

  @Test
  void theSeed() {
    assertEquals(4_849_664 + 524_288 + 2_560 + 607_744 + 393_216, RefScratch.bytes(seed()));
    assertEquals(6_377_472, RefScratch.bytes(seed()));
  }

  @Test
  void theContextDoesNotMatter() {
    // the plan's scratch is the same at every context: attention reads the pools in place
    for (long ctx : new long[] {4_096, 262_144}) {
      MemoryPlan p =
          MemoryPlan.compute(
              PlanRequest.of(Fixtures.linux(512), seed(), Backend.CPU_REFERENCE).withContext(ctx));
      assertEquals(6_377_472, p.scratchBytes(), "at " + ctx);
    }
  }

  @Test
  void aDenseModelHasNoBooksAndItsFfnIsTheWidest() {
    // F = W = 8192: activations 32 × (8192 + 8192 + 1024 + 16384) floats = 4,325,376 B, rows
    // 32 × 8192 × 4 = 1,048,576 B, logits 607,744 B; the router's buffers keep one expert's row
    // (forward.c allocates them for a dense model too): 32 × 2 floats + 32 × (4 + 4) B = 512 B
    assertEquals(
        4_325_376 + 1_048_576 + 607_744 + 512, RefScratch.bytes(Fixtures.dense(4 * GIB, 8_192)));
  }
}
