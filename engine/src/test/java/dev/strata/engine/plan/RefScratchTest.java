package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.GIB;
import static dev.strata.engine.plan.Fixtures.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * strata-ref's working buffers (docs/PLAN.md; engine/native/src/memory.c) for the seed's shape,
 * worked by hand: 12 attention layers × 2 KV heads × 256 floats of queries (24,576 B), per split of
 * 2,048 cells 12 × 2 × (256 + 2) floats of partials (24,768 B), one head's output (1,024 B), and
 * the books: 24,576 slots × 18 B + 512 experts × 8 B (446,464 B).
 */
class RefScratchTest {
  private static final long FIXED = 24_576 + 1_024 + 446_464;

  @Test
  void oneSplitUpTo2048CellsThenTwo() {
    // context 1,920 is 2,048 cells: one split; one token more is two
    assertEquals(FIXED + 24_768, RefScratch.bytes(seed(), 1_920, 0));
    assertEquals(FIXED + 2 * 24_768, RefScratch.bytes(seed(), 1_921, 0));
  }

  @Test
  void at32kSeventeenSplits() {
    // 32,896 cells / 2,048 = 16.06: 17 splits
    assertEquals(FIXED + 17 * 24_768, RefScratch.bytes(seed(), 32_768, 0));
    assertEquals(893_120, RefScratch.bytes(seed(), 32_768, 0));
  }

  @Test
  void theDrafterLayerDecodesToo() {
    // 13 attention layers: queries 26,624 B, partials 26,832 B per split
    assertEquals(26_624 + 26_832 + 1_024 + 446_464, RefScratch.bytes(seed(), 1_920, 1));
  }

  @Test
  void aModelWithoutExpertsHasNoBooks() {
    assertEquals(
        24_576 + 24_768 + 1_024, RefScratch.bytes(Fixtures.dense(4 * GIB, 8_192), 1_920, 0));
  }
}
