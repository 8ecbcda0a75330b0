package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.GIB;
import static dev.strata.engine.plan.Fixtures.mac;
import static dev.strata.engine.plan.Fixtures.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.host.AvailableMemory;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import org.junit.jupiter.api.Test;

/**
 * The plan against the memory available now ({@link LaunchMemory}), every branch, on fake figures:
 * nothing here reads this machine's memory.
 */
class LaunchMemoryTest {
  private static final long MIB = 1L << 20;
  private static final HostFacts M24 = mac(24);

  private static PlanRequest request(ExpertsMode mode, long ctx, KvFormat kv) {
    return PlanRequest.of(M24, seed(), Backend.METAL)
        .withContext(ctx)
        .withExperts(mode)
        .withPools(kv);
  }

  /**
   * The seed model resident on a 128 GiB Mac at {@code ctx}, with its held bytes less {@code short}
   * available.
   */
  private static LaunchMemory.Refused refusedOn128(long ctx, long shortBy) {
    PlanRequest big =
        PlanRequest.of(mac(128), seed(), Backend.METAL)
            .withContext(ctx)
            .withExperts(ExpertsMode.RESIDENT)
            .withPools(KvFormat.INT8);
    MemoryPlan plan = MemoryPlan.compute(big);
    assertTrue(plan.fits());
    AvailableMemory now =
        new AvailableMemory(128 * GIB, LaunchMemory.heldBytes(plan) - shortBy, "test");
    return assertInstanceOf(LaunchMemory.Refused.class, LaunchMemory.decide(big, plan, now));
  }

  private static AvailableMemory available(long bytes) {
    return new AvailableMemory(24 * GIB, bytes, "test");
  }

  private static LaunchMemory.Verdict decide(PlanRequest r, long availableBytes) {
    return LaunchMemory.decide(r, MemoryPlan.compute(r), available(availableBytes));
  }

  @Test
  void heldIsThePlansItemsWithoutHeadroomOrMargin() {
    MemoryPlan p = MemoryPlan.compute(request(ExpertsMode.STREAM, 32_768, KvFormat.INT8));
    assertTrue(p.pageCacheHeadroomBytes() > 0);
    assertEquals(
        p.budgetBytes() - p.pageCacheHeadroomBytes() - p.freeBytes(), LaunchMemory.heldBytes(p));
  }

  @Test
  void aPlanThatFitsTheRoomGoesAheadAsPlanned() {
    PlanRequest r = request(ExpertsMode.STREAM, 32_768, KvFormat.INT8);
    long held = LaunchMemory.heldBytes(MemoryPlan.compute(r));
    LaunchMemory.Fits f =
        assertInstanceOf(LaunchMemory.Fits.class, decide(r, held + MemoryPlan.SAFETY_MARGIN));
    assertEquals(held, f.heldBytes());
    assertTrue(f.line().startsWith("memory: "), f.line());
  }

  @Test
  void streamModeLowersTheBudgetSoTheEngineHoldsAtMostTheRoom() {
    PlanRequest r = request(ExpertsMode.STREAM, 32_768, KvFormat.INT8);
    MemoryPlan plan = MemoryPlan.compute(r);
    long held = LaunchMemory.heldBytes(plan);
    // the brief's machine: 6.2 GiB available of 24 GiB
    long avail = (long) (6.2 * GIB);
    LaunchMemory.Lowered l =
        assertInstanceOf(LaunchMemory.Lowered.class, decide(r, avail), "held " + held);
    long room = avail - MemoryPlan.SAFETY_MARGIN;
    assertTrue(LaunchMemory.heldBytes(l.plan()) <= room);
    assertTrue(l.plan().fits());
    assertTrue(l.plan().arena().slots() < plan.arena().slots());
    assertTrue(l.plan().arena().slots() >= l.plan().arena().tokenSlots());
    // the budget is room + the page-cache headroom in whole MiB, and the plan is the one at it
    assertEquals((room + plan.pageCacheHeadroomBytes()) / MIB, l.budgetMb());
    assertEquals(MemoryPlan.compute(r.withMemBudgetMb(l.budgetMb())), l.plan());
    // the arena takes what the room leaves, but for the budget's rounding down to whole MiB
    assertTrue(LaunchMemory.heldBytes(l.plan()) + l.plan().arena().slotBytes() + MIB > room);
    assertEquals(
        "memory: 6.20 GiB available of 24.00 GiB (other processes hold 17.80 GiB), less the 1.00"
            + " GiB margin, is short of the "
            + dev.strata.engine.text.ByteSize.iec(held)
            + " this plan holds: this launch's budget is lowered to "
            + dev.strata.engine.text.ByteSize.iec(l.budgetMb() * MIB)
            + " (--mem-budget-mb "
            + l.budgetMb()
            + "; the config is unchanged), the expert arena to "
            + l.plan().arena().slots()
            + " of "
            + plan.arena().modelSlots()
            + " slots; the engine holds "
            + dev.strata.engine.text.ByteSize.iec(LaunchMemory.heldBytes(l.plan())),
        l.line());
  }

  @Test
  void aConfigsOwnSmallerBudgetIsLoweredFurtherFromItsPlan() {
    PlanRequest r = request(ExpertsMode.STREAM, 32_768, KvFormat.INT8).withMemBudgetMb(12_000);
    MemoryPlan plan = MemoryPlan.compute(r);
    long held = LaunchMemory.heldBytes(plan);
    LaunchMemory.Lowered l =
        assertInstanceOf(LaunchMemory.Lowered.class, decide(r, held)); // short by the margin
    assertTrue(l.budgetMb() < 12_000);
    assertTrue(LaunchMemory.heldBytes(l.plan()) <= held - MemoryPlan.SAFETY_MARGIN);
  }

  @Test
  void streamModeRefusesWhenNotEvenOneTokensExpertsFit() {
    PlanRequest r = request(ExpertsMode.STREAM, 32_768, KvFormat.INT8);
    LaunchMemory.Refused x = assertInstanceOf(LaunchMemory.Refused.class, decide(r, 2 * GIB));
    assertTrue(
        x.line()
            .startsWith(
                "memory: 2.00 GiB available of 24.00 GiB (other processes hold 22.00 GiB), less"
                    + " the 1.00 GiB margin, is short of the "),
        x.line());
    assertTrue(x.line().contains("with the smallest expert arena (one token's experts)"), x.line());
    // 1 GiB of room holds no stream plan of the seed model (its dense weights are 2.5 GiB)
    assertTrue(x.line().endsWith(": close other work"), x.line());
  }

  @Test
  void expertsLighterThanTheHeadroomCannotBeLoweredAndTheRefusalSaysSo() {
    // the seed's 24,576 slots at 1,000 B: 24.6 MB of experts, far below the page-cache headroom
    // a streaming budget keeps (3 GiB on 24 GiB), so every budget that streams holds them all
    PlanRequest r =
        PlanRequest.of(M24, Fixtures.seed(1_000), Backend.METAL)
            .withContext(32_768)
            .withExperts(ExpertsMode.STREAM)
            .withPools(KvFormat.INT8);
    MemoryPlan plan = MemoryPlan.compute(r);
    assertTrue(plan.fits() && plan.arena().holdsEveryExpert(), plan.toString());
    long held = LaunchMemory.heldBytes(plan);
    LaunchMemory.Refused x =
        assertInstanceOf(
            LaunchMemory.Refused.class, decide(r, held + MemoryPlan.SAFETY_MARGIN - MIB));
    assertTrue(
        x.line()
            .contains(
                " this launch holds (its arena holds every expert: no smaller arena streams): "),
        x.line());
    assertFalse(x.line().contains("one token's experts"), x.line());
  }

  @Test
  void residentModeIsRefusedWithTheChangesThatWouldFit() {
    // 24 GiB does not hold the seed model resident; a 128 GiB Mac does
    LaunchMemory.Refused x = refusedOn128(65_536, 0);
    assertTrue(x.line().contains(" this plan holds (experts resident): "), x.line());
    // held minus the margin: streaming fits, and so does a smaller context
    assertTrue(
        x.line().contains("close other work, or rerun strata-setup with --experts stream"),
        x.line());
    // half the context or q4_0 saves 0.4 GiB at 64K, less than the 1 GiB short: not offered
    assertTrue(x.line().endsWith("rerun strata-setup with --experts stream"), x.line());
    assertFalse(x.line().contains("--ctx"), x.line());
    assertFalse(x.line().contains("--kv q4_0"), x.line());
  }

  @Test
  void q4IsOfferedOnlyWhenItsSavingCloses() {
    // short by 1 GiB of margin + 1 GiB: q4_0 saves several GiB at 1M tokens
    LaunchMemory.Refused x = refusedOn128(1_048_576, GIB);
    assertTrue(
        x.line()
            .endsWith(
                ": close other work, or rerun strata-setup with --experts stream, --ctx 524288 or"
                    + " --kv q4_0"),
        x.line());
  }

  @Test
  void aModelWithoutExpertsIsRefusedInStreamMode() {
    PlanRequest r =
        PlanRequest.of(M24, Fixtures.dense(4 * GIB, 131_072), Backend.METAL)
            .withContext(32_768)
            .withExperts(ExpertsMode.STREAM)
            .withPools(KvFormat.INT8);
    MemoryPlan plan = MemoryPlan.compute(r);
    long held = LaunchMemory.heldBytes(plan);
    LaunchMemory.Refused x =
        assertInstanceOf(LaunchMemory.Refused.class, decide(r, held)); // short by the margin
    assertTrue(x.line().contains(" this plan holds: close other work"), x.line());
  }

  @Test
  void availableMemoryReadsMeminfoAndNeverExceedsTotal() {
    AvailableMemory a =
        AvailableMemory.fromMeminfo(
            "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:    6500000 kB\n", "f");
    assertEquals(24_000_000L * 1024, a.totalBytes());
    assertEquals(6_500_000L * 1024, a.availableBytes());
    assertEquals(17_500_000L * 1024, a.heldElsewhereBytes());
    assertEquals(null, AvailableMemory.fromMeminfo("MemTotal: 100 kB\n", "old kernel"));
    assertEquals(
        0,
        AvailableMemory.fromMeminfo("MemTotal: 1 kB\nMemAvailable: 0 kB\n", "x").availableBytes());
    assertEquals(1024, new AvailableMemory(1024, 4096, "x").availableBytes());
  }
}
