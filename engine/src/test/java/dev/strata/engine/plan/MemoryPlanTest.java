package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.GIB;
import static dev.strata.engine.plan.Fixtures.SEED_DENSE;
import static dev.strata.engine.plan.Fixtures.SEED_SLOT;
import static dev.strata.engine.plan.Fixtures.UPSTREAM_SLOT;
import static dev.strata.engine.plan.Fixtures.linux;
import static dev.strata.engine.plan.Fixtures.mac;
import static dev.strata.engine.plan.Fixtures.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemoryPlanTest {
  private static final Map<String, String> NO_ENV = Map.of();

  /** The Metal plan of this model at this context with these pools. */
  private static PlanRequest metal(HostFacts host, ModelGeometry m, long ctx, KvFormat kv) {
    return PlanRequest.of(host, m, Backend.METAL).withContext(ctx).withPools(kv);
  }

  private static MemoryPlan stream(HostFacts host, ModelGeometry m, long ctx, KvFormat kv) {
    return MemoryPlan.compute(metal(host, m, ctx, kv).withExperts(ExpertsMode.STREAM));
  }

  private static MemoryPlan resident(HostFacts host, ModelGeometry m, long ctx, KvFormat kv) {
    return MemoryPlan.compute(metal(host, m, ctx, kv).withExperts(ExpertsMode.RESIDENT));
  }

  @Test
  void seedKvFiguresComeThroughThePlan() {
    HostFacts host = mac(48);
    MemoryPlan int8At32k = stream(host, seed(), 32_768, KvFormat.INT8);
    assertEquals(32_896, int8At32k.kv().cells());
    assertEquals(1_056, int8At32k.kv().cellBytes());
    assertEquals(12, int8At32k.kv().layers());
    assertEquals(416_858_112L, int8At32k.kv().bytes());
    assertEquals(227_377_152L, stream(host, seed(), 32_768, KvFormat.Q4_0).kv().bytes());
    assertEquals(832_094_208L, stream(host, seed(), 65_536, KvFormat.INT8).kv().bytes());
    assertEquals(453_869_568L, stream(host, seed(), 65_536, KvFormat.Q4_0).kv().bytes());
    // resident mode sizes the same pools
    assertEquals(416_858_112L, resident(host, seed(), 32_768, KvFormat.INT8).kv().bytes());
  }

  @Test
  void q4At32kWinsUpstreamsMeasured241ArenaSlots() {
    // Upstream: 32K q4_0 arena 16,081 slots vs 15,840 int8 (+241) with 786,432-byte slots.
    ModelGeometry m = seed(UPSTREAM_SLOT);
    HostFacts host = mac(24);
    MemoryPlan int8 = stream(host, m, 32_768, KvFormat.INT8);
    MemoryPlan q4 = stream(host, m, 32_768, KvFormat.Q4_0);
    assertTrue(int8.fits() && q4.fits());
    assertFalse(int8.arena().holdsEveryExpert(), "the arena must not be capped for this check");
    assertEquals(189_480_960L, int8.kv().bytes() - q4.kv().bytes());
    assertEquals(241, q4.arena().slots() - int8.arena().slots());
    // the freed bytes land in the arena and nowhere else
    assertEquals(int8.standbyBytes(), q4.standbyBytes());
    assertEquals(int8.pageCacheHeadroomBytes(), q4.pageCacheHeadroomBytes());
  }

  @Test
  void q4At64kWins481SlotsWhereUpstreamMeasured494() {
    // The plan models only the KV pools; docs/PLAN.md explains the 13-slot gap.
    ModelGeometry m = seed(UPSTREAM_SLOT);
    MemoryPlan int8 = stream(mac(24), m, 65_536, KvFormat.INT8);
    MemoryPlan q4 = stream(mac(24), m, 65_536, KvFormat.Q4_0);
    assertEquals(378_224_640L, int8.kv().bytes() - q4.kv().bytes());
    assertEquals(480, (int8.kv().bytes() - q4.kv().bytes()) / UPSTREAM_SLOT);
    assertEquals(481, q4.arena().slots() - int8.arena().slots());
  }

  @Test
  void streamPlanOnA16GibMacFitsWithTheseFigures() {
    MemoryPlan p = stream(mac(16), seed(), 32_768, KvFormat.INT8);
    assertTrue(p.fits());
    assertNull(p.refusal());
    assertEquals(16 * GIB, p.memory().totalBytes());
    assertEquals(11_453_246_122L, p.memory().usableBytes());
    assertEquals(GIB, p.marginBytes());
    assertEquals(10_379_504_298L, p.budgetBytes());
    assertEquals(SEED_DENSE, p.denseBytes());
    assertEquals(576, p.standby().slots());
    assertEquals(576 * SEED_SLOT, p.standbyBytes());
    assertEquals(2 * GIB, p.pageCacheHeadroomBytes());
    assertEquals(5_750, p.arena().slots());
    assertEquals(5_750 * SEED_SLOT, p.arena().bytes());
    assertEquals(480, p.arena().tokenSlots());
    assertEquals(24_576, p.arena().modelSlots());
    // everything adds up to the budget, the rest is less than one slot
    assertEquals(
        p.budgetBytes(),
        p.denseBytes()
            + p.kv().bytes()
            + p.standbyBytes()
            + p.pageCacheHeadroomBytes()
            + p.arena().bytes()
            + p.freeBytes());
    assertTrue(p.freeBytes() >= 0 && p.freeBytes() < SEED_SLOT);
  }

  @Test
  void streamArenaIsCappedAtTheModelsSlots() {
    MemoryPlan p = stream(mac(128), seed(), 32_768, KvFormat.INT8);
    assertTrue(p.fits());
    assertEquals(24_576, p.arena().slots());
    assertTrue(p.arena().holdsEveryExpert());
    // nothing streams: no page-cache headroom and no stand-by slots beyond the model's slots
    assertEquals(0, p.pageCacheHeadroomBytes());
    assertEquals(0, p.standby().slots());
    assertTrue(p.notes().stream().anyMatch(n -> n.contains("holds every expert")));
  }

  @Test
  void residentRefusedOnA16GibMacWithTheShortfallAndStream() {
    MemoryPlan p = resident(mac(16), seed(), 32_768, KvFormat.INT8);
    assertFalse(p.fits());
    assertEquals(
        "resident: dense 2.50 + KV 0.39 + every expert 18.56 = 21.45 GiB, over the 9.67 GiB the"
            + " engine may use (10.67 GiB usable - 1.00 GiB margin) by 11.8 GiB; use --experts"
            + " stream",
        p.refusal());
    assertEquals(23_032_545_280L - 10_379_504_298L, p.shortfallBytes());
    assertEquals(0, p.standbyBytes(), "resident mode needs no stand-by slots");
    assertEquals(0, p.pageCacheHeadroomBytes());
  }

  @Test
  void residentFitsOnA48GibMac() {
    MemoryPlan p = resident(mac(48), seed(), 32_768, KvFormat.INT8);
    assertTrue(p.fits());
    assertEquals(24_576, p.arena().slots());
    assertEquals(24_576 * SEED_SLOT, p.arena().bytes());
    assertEquals(37_580_963_840L - 23_032_545_280L, p.freeBytes());
  }

  @Test
  void residentRefusalAlsoSaysWhenStreamNeedsASmallerContext() {
    MemoryPlan p = resident(mac(16), seed(), 1_048_576, KvFormat.INT8);
    assertFalse(p.fits());
    assertTrue(
        p.refusal()
            .matches(
                ".*; use --experts stream with a smaller context \\(--ctx \\d+ fits\\) or --kv q4_0"),
        p.refusal());
  }

  @Test
  void streamRefusedWhenKvCrowdsOutTheArenaSaysContextOrQ4() {
    ModelGeometry longTrained = Fixtures.withTrainedContext(4_194_304);
    MemoryPlan p = stream(mac(16), longTrained, 1_048_576, KvFormat.INT8);
    assertFalse(p.fits());
    // room for KV = budget - dense - stand-by - headroom - one token's experts
    long room = 10_379_504_298L - SEED_DENSE - 576 * SEED_SLOT - 2 * GIB - 480 * SEED_SLOT;
    long maxContext = room / (1_056L * 12) - 128;
    long suggested = maxContext / 1024 * 1024;
    assertEquals(369_664, suggested);
    assertTrue(
        p.refusal().endsWith("use a smaller context (--ctx 369664 fits) or --kv q4_0"),
        p.refusal());
    assertTrue(p.refusal().startsWith("stream: the expert arena cannot hold one token's experts"));
    assertTrue(p.refusal().contains("short by 8.1 GiB"), p.refusal());
    // the suggested context really fits, and one token more than the exact maximum would not
    assertTrue(stream(mac(16), longTrained, suggested, KvFormat.INT8).fits());
    assertTrue(stream(mac(16), longTrained, maxContext, KvFormat.INT8).fits());
    assertFalse(stream(mac(16), longTrained, maxContext + 1, KvFormat.INT8).fits());

    // never more than the model was trained for
    MemoryPlan seedModel = stream(mac(16), seed(), 1_048_576, KvFormat.INT8);
    assertTrue(
        seedModel.refusal().endsWith("use a smaller context (--ctx 262144 fits) or --kv q4_0"),
        seedModel.refusal());

    MemoryPlan q4 = stream(mac(16), longTrained, 2_000_000, KvFormat.Q4_0);
    assertFalse(q4.fits());
    assertFalse(q4.refusal().contains("--kv q4_0"), "already q4_0: " + q4.refusal());
  }

  @Test
  void aModelTooBigForTheMacSaysSoEvenAtTheSmallestContext() {
    ModelGeometry huge = Fixtures.huge();
    MemoryPlan p = stream(mac(16), huge, 4_096, KvFormat.INT8);
    assertFalse(p.fits());
    assertTrue(
        p.refusal()
            .endsWith(
                "the model does not fit even streamed at the smallest context; raise"
                    + " iogpu.wired_limit_mb or use a Mac with more memory"),
        p.refusal());
  }

  /**
   * When --mem-budget-mb is what binds (it lowered the budget), the advice names it, not the
   * machine; a --mem-budget-mb above the plan's own budget binds nothing and is not named.
   */
  @Test
  void aBindingMemBudgetIsTheRemedyNotTheMachine() {
    PlanRequest ref =
        PlanRequest.of(Fixtures.linux(24), seed(), Backend.CPU_REFERENCE)
            .withContext(4096)
            .withExperts(ExpertsMode.STREAM);
    MemoryPlan tight = MemoryPlan.compute(ref.withMemBudgetMb(4500));
    assertFalse(tight.fits());
    assertTrue(
        tight.refusal().contains(" GiB in the 4.39 GiB the engine may use;"), tight.refusal());
    assertTrue(
        tight
            .refusal()
            .endsWith(
                "; the model does not fit even streamed at the smallest context within"
                    + " --mem-budget-mb 4500; raise or remove --mem-budget-mb (without it the engine"
                    + " may use 23.00 GiB)"),
        tight.refusal());
    assertFalse(tight.refusal().contains("machine"), tight.refusal());
    // a budget the KV crowds out: the smaller context, or the flag
    MemoryPlan kv = MemoryPlan.compute(ref.withContext(1_048_576).withMemBudgetMb(15_000));
    assertFalse(kv.fits());
    assertTrue(
        kv.refusal()
            .matches(
                ".*; use a smaller context \\(--ctx \\d+ fits\\) or --kv q4_0, or raise"
                    + " or remove --mem-budget-mb \\(without it the engine may use 23.00 GiB\\)"),
        kv.refusal());
    // the same shortfall without the flag is the machine's
    MemoryPlan small =
        MemoryPlan.compute(
            PlanRequest.of(Fixtures.linux(5), seed(), Backend.CPU_REFERENCE)
                .withContext(4096)
                .withExperts(ExpertsMode.STREAM)
                .withMemBudgetMb(100_000));
    assertTrue(
        small
            .refusal()
            .endsWith(
                "the model does not fit even streamed at the smallest context; use a machine with more"
                    + " memory"),
        small.refusal());
  }

  /**
   * Issue 28: a --mem-budget-mb above what the machine gives the engine is capped to usable −
   * margin, and the plan says so with each figure; one below labels the budget row with the flag,
   * not "usable - margin"; the flag at the plan's own whole-MiB figure (what setup writes) changes
   * nothing.
   */
  @Test
  void aMemBudgetAboveTheMachineIsSaidToBeCappedAndTheBudgetRowNamesItsSource() {
    PlanRequest ref =
        PlanRequest.of(Fixtures.linux(24), seed(), Backend.CPU_REFERENCE)
            .withContext(4096)
            .withExperts(ExpertsMode.STREAM);
    MemoryPlan own = MemoryPlan.compute(ref);
    long ownMb = own.budgetBytes() / (1L << 20);
    MemoryPlan above = MemoryPlan.compute(ref.withMemBudgetMb(100_000));
    assertEquals(own.budgetBytes(), above.budgetBytes());
    String capped =
        "memory: --mem-budget-mb 100000 is above what this machine gives the engine (usable"
            + " 24,576 MiB - margin 1,024 MiB = 23,552 MiB); the budget is capped to 23,552 MiB";
    assertEquals(23_552, ownMb);
    assertTrue(above.notes().contains(capped), above.notes().toString());
    assertTrue(PlanText.table(above).contains(capped), PlanText.table(above));
    assertTrue(PlanText.table(above).contains("usable - margin\n"), PlanText.table(above));
    MemoryPlan same = MemoryPlan.compute(ref.withMemBudgetMb(ownMb));
    assertEquals(own.notes(), same.notes(), "the generated figure is not capped");
    assertEquals(PlanText.table(own), PlanText.table(same));
    MemoryPlan below = MemoryPlan.compute(ref.withMemBudgetMb(20_000));
    assertTrue(
        PlanText.table(below).contains("--mem-budget-mb 20000 (below usable - margin)"),
        PlanText.table(below));
    assertFalse(
        below.notes().stream().anyMatch(n -> n.contains("capped")), below.notes().toString());
  }

  @Test
  void standbyIs576WithThePromptGemmChainAnd64WithoutIt() {
    ModelGeometry m = seed();
    HostFacts m4 = mac(24);
    assertEquals(576, plan(m4, Backend.METAL, Map.of()).standby().slots());
    assertEquals(
        576, plan(m4, Backend.METAL, Map.of("STRATA_METAL_PROMPT_GEMM", "1")).standby().slots());
    assertEquals(
        64, plan(m4, Backend.METAL, Map.of("STRATA_METAL_PROMPT_GEMM", "0")).standby().slots());
    assertEquals(
        64, plan(m4, Backend.METAL, Map.of("STRATA_METAL_PROMPT", "window")).standby().slots());
    assertEquals(
        576, plan(m4, Backend.METAL, Map.of("STRATA_METAL_PROMPT", "flash")).standby().slots());
    assertEquals(64, plan(mac(24, 0, true), Backend.METAL, Map.of()).standby().slots());
    // strata-ref follows the Metal rules, wherever it runs
    assertEquals(576, plan(linux(16), Backend.CPU_REFERENCE, Map.of()).standby().slots());
    assertEquals(
        64,
        plan(linux(16), Backend.CPU_REFERENCE, Map.of("STRATA_METAL_PROMPT_GEMM", "0"))
            .standby()
            .slots());
    assertEquals(64, plan(mac(16, 0, true), Backend.CPU_REFERENCE, Map.of()).standby().slots());

    // switching the chain off gives its 512 slots back to the arena
    MemoryPlan on = plan(mac(24), Backend.METAL, Map.of());
    MemoryPlan off = plan(mac(24), Backend.METAL, Map.of("STRATA_METAL_PROMPT_GEMM", "0"));
    assertEquals(64 * SEED_SLOT, off.standbyBytes());
    assertEquals(512, off.arena().slots() - on.arena().slots());
    assertEquals("STRATA_METAL_PROMPT_GEMM=0", off.standby().reason());
  }

  private static MemoryPlan plan(HostFacts host, Backend backend, Map<String, String> env) {
    return MemoryPlan.compute(
        PlanRequest.of(host, seed(), backend)
            .withContext(32_768)
            .withExperts(ExpertsMode.STREAM)
            .withPools(KvFormat.INT8)
            .withEnv(env));
  }

  @Test
  void wiredLimitIsHonouredAndCappedAtPhysicalMemory() {
    MemoryPlan p = stream(mac(16, 14_336, false), seed(), 32_768, KvFormat.INT8);
    assertEquals(UsableMemory.Rule.WIRED_LIMIT, p.memory().rule());
    assertEquals(14 * GIB, p.memory().usableBytes());
    assertEquals(13 * GIB, p.budgetBytes());

    // a smaller limit than the default rule lowers it too
    assertEquals(8 * GIB, UsableMemory.of(mac(16, 8_192, false), Backend.METAL).usableBytes());

    MemoryPlan over = stream(mac(16, 65_536, false), seed(), 32_768, KvFormat.INT8);
    assertEquals(16 * GIB, over.memory().usableBytes());
    assertTrue(over.notes().stream().anyMatch(n -> n.contains("iogpu.wired_limit_mb=65536")));
  }

  @Test
  void usableMemoryRuleAt16_24_48_128Gib() {
    assertUsable(16, 11_453_246_122L, UsableMemory.Rule.TWO_THIRDS); // 10.67 GiB
    assertUsable(24, 16 * GIB, UsableMemory.Rule.TWO_THIRDS);
    assertUsable(32, 22_906_492_245L, UsableMemory.Rule.TWO_THIRDS); // 21845.33 MiB, as logged
    assertUsable(36, 24 * GIB, UsableMemory.Rule.TWO_THIRDS);
    assertUsable(48, 36 * GIB, UsableMemory.Rule.THREE_QUARTERS);
    assertUsable(64, 48 * GIB, UsableMemory.Rule.THREE_QUARTERS);
    assertUsable(128, 96 * GIB, UsableMemory.Rule.THREE_QUARTERS);
    // Linux and strata-ref: the whole memory
    assertEquals(
        new UsableMemory(48 * GIB, 48 * GIB, UsableMemory.Rule.WHOLE_MEMORY),
        UsableMemory.of(linux(48), Backend.CPU_REFERENCE));
    assertEquals(
        new UsableMemory(48 * GIB, 48 * GIB, UsableMemory.Rule.WHOLE_MEMORY),
        UsableMemory.of(mac(48), Backend.CPU_REFERENCE));
  }

  private static void assertUsable(long gib, long usable, UsableMemory.Rule rule) {
    UsableMemory u = UsableMemory.of(mac(gib), Backend.METAL);
    assertEquals(usable, u.usableBytes(), gib + " GiB");
    assertEquals(rule, u.rule(), gib + " GiB");
  }

  @Test
  void costDoesNotDependOnTheContext() {
    // A plan that walked cells or tokens would not return at a trillion tokens; this one is
    // arithmetic, and exact.
    long ctx = 1_000_000_000_000L;
    MemoryPlan p = stream(linux(16L << 20), seed(), ctx, KvFormat.INT8);
    assertEquals((ctx + 128) * 1_056L * 12, p.kv().bytes());
    assertTrue(p.fits(), "a 16 PiB machine holds it");
    MemoryPlan r = resident(mac(16), seed(), ctx, KvFormat.Q4_0);
    assertFalse(r.fits());
  }

  @Test
  void q4OnAModelWithoutHeadDim256IsARefusalNotACrash() {
    MemoryPlan p = stream(mac(48), Fixtures.withHeadDim(128), 32_768, KvFormat.Q4_0);
    assertFalse(p.fits());
    assertEquals(
        "kv: q4_0 pools cannot hold this qwen3next model's head_dim 128 (q4_0 needs head_dim 256"
            + " (FWHT-256), got 128); use --kv int8",
        p.refusal());
  }

  @Test
  void kvDecisionNotesReachThePlan() {
    var decision =
        (dev.strata.engine.kv.KvDecision.Accepted)
            KvRules.decide(Backend.METAL, KvFormat.FP16, NO_ENV);
    MemoryPlan p =
        MemoryPlan.compute(
            PlanRequest.of(mac(48), seed(), Backend.METAL).withContext(32_768).withKv(decision));
    assertEquals(KvFormat.INT8, p.kv().format());
    assertEquals(416_858_112L, p.kv().bytes());
    assertEquals(KvRules.FP16_ON_METAL_NOTE, p.notes().getFirst());
  }

  @Test
  void contextAboveTrainedIsNotedAndBadInputsAreRejected() {
    MemoryPlan p = stream(mac(128), seed(), 524_288, KvFormat.INT8);
    assertTrue(p.notes().contains("context: 524288 is above the model's trained context 262144"));
    assertThrows(IllegalArgumentException.class, () -> stream(mac(48), seed(), 0, KvFormat.INT8));
    // fp16 and k8v4 never reach the Metal pools: KvRules maps or refuses them first
    assertThrows(
        IllegalArgumentException.class, () -> stream(mac(48), seed(), 4_096, KvFormat.FP16));
    assertThrows(
        IllegalArgumentException.class, () -> stream(mac(48), seed(), 4_096, KvFormat.K8V4));
  }

  @Test
  void aDenseModelNeedsNoArena() {
    // 32 blocks, the seed's 12 QSA layers, no experts, 4 GiB of dense weights, 8K trained context
    ModelGeometry dense = Fixtures.dense(4 * GIB, 8_192);
    MemoryPlan p = stream(mac(16), dense, 8_192, KvFormat.INT8);
    assertTrue(p.fits());
    assertEquals(0, p.arena().slots());
    assertEquals(0, p.standbyBytes());
    assertTrue(resident(mac(16), dense, 8_192, KvFormat.INT8).fits());
  }
}
