package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.GIB;
import static dev.strata.engine.plan.Fixtures.linuxBytes;
import static dev.strata.engine.plan.Fixtures.macBytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.Backend;
import org.junit.jupiter.api.Test;

/** The usable-memory rules of docs/PLAN.md at their edges, with byte counts worked by hand. */
class UsableMemoryTest {
  private static final long MIB = 1L << 20;

  private static UsableMemory metal(long memoryBytes, long wiredLimitMb) {
    return UsableMemory.of(macBytes(memoryBytes, wiredLimitMb, false), Backend.METAL);
  }

  /** The share is the exact floor of 2/3 or 3/4 of the byte count, whatever its remainder. */
  @Test
  void theGpuShareIsTheExactFloorOfAnyByteCount() {
    // 3/4 × (48 GiB + r) = 36 GiB + floor(3r / 4): r = 1, 2, 3 give 0, 1, 2
    assertEquals(36 * GIB, metal(48 * GIB + 1, 0).usableBytes());
    assertEquals(36 * GIB + 1, metal(48 * GIB + 2, 0).usableBytes());
    assertEquals(36 * GIB + 2, metal(48 * GIB + 3, 0).usableBytes());
    // 2/3 × (24 GiB + 2) = 16 GiB + 1 (rounded down from 1.33)
    assertEquals(16 * GIB + 1, metal(24 * GIB + 2, 0).usableBytes());
  }

  @Test
  void twoThirdsUpTo36GibInclusiveThenThreeQuarters() {
    UsableMemory at = metal(36 * GIB, 0);
    assertEquals(UsableMemory.Rule.TWO_THIRDS, at.rule());
    assertEquals(24 * GIB, at.usableBytes());
    UsableMemory above = metal(36 * GIB + 1, 0);
    assertEquals(UsableMemory.Rule.THREE_QUARTERS, above.rule());
    assertEquals(27 * GIB, above.usableBytes()); // floor(3/4 × (36 GiB + 1))
  }

  /**
   * iogpu.wired_limit_mb at the physical memory in whole MiB, or above it, plans with the physical
   * memory itself (here 16 GiB + 512 KiB, not a whole MiB); one MiB less is taken as it is.
   */
  @Test
  void aWiredLimitAtOrAboveThePhysicalMemoryIsCappedAtIt() {
    long total = 16 * GIB + 512 * 1024;
    UsableMemory at = metal(total, 16_384);
    assertEquals(UsableMemory.Rule.WIRED_LIMIT, at.rule());
    assertEquals(total, at.usableBytes());
    assertEquals(total, metal(total, 16_385).usableBytes());
    UsableMemory below = metal(total, 16_383);
    assertEquals(UsableMemory.Rule.WIRED_LIMIT, below.rule());
    assertEquals(16_383 * MIB, below.usableBytes());
    // 1 MiB of wired limit is 1 MiB usable
    assertEquals(MIB, metal(total, 1).usableBytes());
  }

  @Test
  void aHostNeedsSomeMemory() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> UsableMemory.of(linuxBytes(0), Backend.PC));
    assertEquals("host memory_bytes must be positive, got 0", e.getMessage());
    assertEquals(
        new UsableMemory(1, 1, UsableMemory.Rule.WHOLE_MEMORY),
        UsableMemory.of(linuxBytes(1), Backend.PC));
  }

  @Test
  void usableIsWithinZeroAndTheTotal() {
    assertEquals(0, new UsableMemory(0, 0, UsableMemory.Rule.WHOLE_MEMORY).usableBytes());
    assertEquals(10, new UsableMemory(10, 10, UsableMemory.Rule.WIRED_LIMIT).usableBytes());
    assertEquals(
        "usable memory must be within 0..10, got 11",
        assertThrows(
                IllegalArgumentException.class,
                () -> new UsableMemory(10, 11, UsableMemory.Rule.WIRED_LIMIT))
            .getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> new UsableMemory(10, -1, UsableMemory.Rule.WIRED_LIMIT));
    assertThrows(
        IllegalArgumentException.class,
        () -> new UsableMemory(-1, 0, UsableMemory.Rule.WHOLE_MEMORY));
  }
}
