package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.GIB;
import static dev.strata.engine.plan.Fixtures.linux;
import static dev.strata.engine.plan.Fixtures.mac;
import static dev.strata.engine.plan.Fixtures.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The plan's rules at their edges (context 1, the trained context, --spec 0/1, --mem-budget-mb at
 * the plan's own MiB), and the figures the engine allocates. Every expected figure is worked by
 * hand from docs/PLAN.md and docs/ENGINE-CONTRACT.md (int8: 1,056 B per cell per QSA layer for 2 KV
 * heads of 256; cells = context + 128), not taken from the code under test.
 */
class PlanEdgesTest {
  private static final long MIB = 1L << 20;

  /** 3 × 2048 × 512 values at 66 bytes per 256 (TQ2_0): one seed expert. */
  private static final long SLOT = 811_008;

  private static final long DENSE = 2_684_354_560L;

  /** 32,768 + 128 cells × 1,056 B × 12 QSA layers. */
  private static final long KV_32K = 416_858_112L;

  private static PlanRequest at32k(HostFacts host, ModelGeometry model, Backend backend) {
    return PlanRequest.of(host, model, backend).withContext(32_768);
  }

  @Test
  void aContextOfOneTokenIsPlanned() {
    MemoryPlan p =
        MemoryPlan.compute(PlanRequest.of(mac(48), seed(), Backend.METAL).withContext(1));
    assertEquals(129, p.kv().cells());
    assertEquals(129L * 1_056 * 12, p.kv().bytes());
    assertTrue(p.fits());
  }

  @Test
  void theContextNoteStartsOneTokenAboveTheTrainedContext() {
    PlanRequest r = PlanRequest.of(mac(48), Fixtures.withTrainedContext(32_768), Backend.METAL);
    assertFalse(notes(r.withContext(32_768)).stream().anyMatch(n -> n.startsWith("context:")));
    assertTrue(
        notes(r.withContext(32_769))
            .contains("context: 32769 is above the model's trained context 32768"));
    // a model that does not say its trained context gets no such note at any context
    PlanRequest unknown = PlanRequest.of(mac(48), Fixtures.withTrainedContext(0), Backend.METAL);
    assertFalse(
        notes(unknown.withContext(1_000_000)).stream().anyMatch(n -> n.startsWith("context:")));
  }

  private static List<String> notes(PlanRequest r) {
    return MemoryPlan.compute(r).notes();
  }

  /** --spec 1 plans the drafter's weights and its attention layer's pool; --spec 0 neither. */
  @Test
  void theDrafterIsPlannedFromSpecOne() {
    PlanRequest r = at32k(mac(48), Fixtures.withDrafter(100 * MIB), Backend.METAL);
    MemoryPlan off = MemoryPlan.compute(r);
    assertEquals(0, off.drafterBytes());
    assertEquals(0, off.kv().drafterLayers());
    assertEquals(KV_32K, off.kv().bytes());
    MemoryPlan on = MemoryPlan.compute(r.withSpec(1));
    assertEquals(100 * MIB, on.drafterBytes());
    assertEquals(1, on.kv().drafterLayers());
    assertEquals(32_896L * 1_056 * 13, on.kv().bytes()); // 13 pools of full cells
    assertFalse(on.notes().stream().anyMatch(n -> n.startsWith("spec:")));
  }

  @Test
  void specOnAModelWithoutDrafterIsANoteFromSpecOne() {
    PlanRequest r = at32k(mac(48), seed(), Backend.METAL);
    assertFalse(MemoryPlan.compute(r).notes().stream().anyMatch(n -> n.startsWith("spec:")));
    MemoryPlan p = MemoryPlan.compute(r.withSpec(1));
    assertTrue(
        p.notes()
            .contains(
                "spec: --spec 1 asks for MTP drafting but the model has no MTP block"
                    + " (qwen3next.nextn_predict_layers); the engine runs without drafting"),
        p.notes().toString());
    assertEquals(0, p.drafterBytes());
    assertEquals(KV_32K, p.kv().bytes());
  }

  /**
   * --mem-budget-mb lowers the budget only below the plan's own budget in whole MiB: here usable is
   * 17 GiB + 1000 B, so the plan's budget is 16 GiB + 1000 B = 16,384 MiB and a bit.
   */
  @Test
  void theEngineBudgetLowersThePlanOnlyBelowItsWholeMib() {
    UsableMemory u = new UsableMemory(32 * GIB, 17 * GIB + 1_000, UsableMemory.Rule.WIRED_LIMIT);
    long plan = 16 * GIB + 1_000;
    assertEquals(plan, MemoryPlan.budget(u, 0));
    assertEquals(plan, MemoryPlan.budget(u, 16_384));
    assertEquals(plan, MemoryPlan.budget(u, 20_000));
    assertEquals(16_383 * MIB, MemoryPlan.budget(u, 16_383));
    assertEquals(MIB, MemoryPlan.budget(u, 1));
    // less usable memory than the margin: a budget of 0, which no flag raises
    UsableMemory small = new UsableMemory(GIB, GIB / 2, UsableMemory.Rule.WIRED_LIMIT);
    assertEquals(0, MemoryPlan.budget(small, 0));
    assertEquals(0, MemoryPlan.budget(small, 1));
    assertEquals(
        0, MemoryPlan.budget(new UsableMemory(GIB, GIB, UsableMemory.Rule.WHOLE_MEMORY), 0));
  }

  @Test
  void aPlanWithAnEngineBudgetUsesIt() {
    MemoryPlan p =
        MemoryPlan.compute(at32k(mac(48), seed(), Backend.METAL).withMemBudgetMb(20_000));
    assertEquals(20_000 * MIB, p.budgetBytes());
  }

  /**
   * What a plan that streams holds besides the arena, even when this plan's arena holds every
   * expert (then it shows no stand-by and no headroom): dense + state + drafter + KV + 576 stand-by
   * slots (512 experts + 64) + max(2 GiB, memory / 8) + strata-ref's scratch.
   */
  @Test
  void streamingFixedBytesCountsStandbyAndHeadroomEvenWhenNothingStreams() {
    PlanRequest metal = at32k(mac(128), seed(), Backend.METAL);
    MemoryPlan open = MemoryPlan.compute(metal);
    assertTrue(open.arena().holdsEveryExpert());
    assertEquals(0, open.standbyBytes());
    assertEquals(0, open.pageCacheHeadroomBytes());
    assertEquals(
        DENSE + KV_32K + 576 * SLOT + 16 * GIB,
        MemoryPlan.streamingFixedBytes(open, seed(), Map.of(), mac(128)));
    assertEquals(20_748_222_464L, DENSE + KV_32K + 576 * SLOT + 16 * GIB);

    // with recurrent state (36 layers of 1 MiB) and a drafter of 100 MiB planned by --spec 1
    ModelGeometry hybrid = Fixtures.hybrid(36, MIB);
    MemoryPlan h = MemoryPlan.compute(at32k(mac(128), hybrid, Backend.METAL));
    assertEquals(
        DENSE + 36 * MIB + KV_32K + 576 * SLOT + 16 * GIB,
        MemoryPlan.streamingFixedBytes(h, hybrid, Map.of(), mac(128)));
    ModelGeometry drafter = Fixtures.withDrafter(100 * MIB);
    MemoryPlan d = MemoryPlan.compute(at32k(mac(128), drafter, Backend.METAL).withSpec(1));
    assertEquals(
        DENSE + 100 * MIB + 32_896L * 1_056 * 13 + 576 * SLOT + 16 * GIB,
        MemoryPlan.streamingFixedBytes(d, drafter, Map.of(), mac(128)));

    // strata-ref on a 48 GiB Linux machine: headroom 48 GiB / 8 = 6 GiB, and its scratch
    // (RefScratchTest: 4,018,176 B); the prompt switch off leaves 64 stand-by slots
    MemoryPlan ref = MemoryPlan.compute(at32k(linux(48), seed(), Backend.CPU_REFERENCE));
    assertEquals(6_377_472, ref.scratchBytes());
    assertEquals(
        DENSE + KV_32K + 576 * SLOT + 6 * GIB + 6_377_472,
        MemoryPlan.streamingFixedBytes(ref, seed(), Map.of(), linux(48)));
    assertEquals(
        DENSE + KV_32K + 64 * SLOT + 6 * GIB + 6_377_472,
        MemoryPlan.streamingFixedBytes(
            ref, seed(), Map.of(StandbySlots.ENV_PROMPT_GEMM, "0"), linux(48)));
  }

  /**
   * The engine's allocations in its order, items of 0 bytes left out: strata-ref on 48 GiB holds
   * every expert (24,576 slots × 811,008 B), so no stand-by.
   */
  @Test
  void itemsListWhatTheEngineAllocatesInItsOrder() {
    MemoryPlan ref = MemoryPlan.compute(at32k(linux(48), seed(), Backend.CPU_REFERENCE));
    assertEquals(
        List.of(
            "item=weights bytes=2684354560",
            "item=kv bytes=416858112",
            "item=arena bytes=19931332608",
            "item=scratch bytes=6377472"),
        PlanText.items(ref));
    assertEquals(24_576L * SLOT, 19_931_332_608L);
    MemoryPlan hybrid =
        MemoryPlan.compute(at32k(linux(48), Fixtures.hybrid(36, MIB), Backend.CPU_REFERENCE));
    assertEquals(
        List.of(
            "item=weights bytes=2684354560",
            "item=kv bytes=416858112",
            "item=ssm_state bytes=37748736",
            "item=arena bytes=19931332608",
            "item=scratch bytes=6377472"),
        PlanText.items(hybrid));
    // Metal on 16 GiB streams: stand-by 576 slots, an arena of 5,750 (PlanTextTest's table)
    MemoryPlan metal = MemoryPlan.compute(at32k(mac(16), seed(), Backend.METAL));
    assertEquals(
        List.of(
            "item=weights bytes=2684354560",
            "item=kv bytes=416858112",
            "item=standby bytes=" + 576 * SLOT,
            "item=arena bytes=" + 5_750 * SLOT),
        PlanText.items(metal));
    assertEquals(
        List.of(
            "plan: item=weights bytes=2684354560",
            "plan: item=kv bytes=416858112",
            "plan: item=standby bytes=467140608",
            "plan: item=arena bytes=4663296000"),
        PlanItems.lines(metal));
  }

  /**
   * The PC engine on a Linux machine of T bytes (whole memory, 64 stand-by slots, headroom 2 GiB
   * below 16 GiB), int8 pools: fixed = dense + KV + 64 × 811,008 + 2 GiB = 5,300,600,832 B, one
   * token's experts 480 × 811,008 = 389,283,840 B. At T = 1 GiB + fixed + one token (6,763,626,496
   * B) the arena holds exactly one token and the plan fits with nothing free; one byte less does
   * not fit, short by that byte.
   */
  @Test
  void aStreamPlanFitsFromTheByteThatHoldsOneToken() {
    long t = 6_763_626_496L;
    assertEquals(GIB + DENSE + KV_32K + 64 * SLOT + 2 * GIB + 480 * SLOT, t);
    MemoryPlan exact = MemoryPlan.compute(pc(t));
    assertTrue(exact.fits(), exact.refusal());
    assertEquals(480, exact.arena().slots());
    assertEquals(0, exact.freeBytes());
    MemoryPlan short1 = MemoryPlan.compute(pc(t - 1));
    assertFalse(short1.fits());
    assertEquals(1, short1.shortfallBytes());
    // refused resident, the advice is plain "stream" exactly when a stream plan would fit
    PlanRequest resident = pc(t).withExperts(ExpertsMode.RESIDENT);
    assertTrue(MemoryPlan.compute(resident).refusal().endsWith("; use --experts stream"));
    assertTrue(
        MemoryPlan.compute(pc(t - 1).withExperts(ExpertsMode.RESIDENT))
            .refusal()
            .contains("; use --experts stream with "));
  }

  /** Resident fits when dense + KV + every expert (23,032,545,280 B) is exactly the budget. */
  @Test
  void aResidentPlanFitsAtExactlyItsBudget() {
    long need = DENSE + KV_32K + 24_576 * SLOT;
    assertEquals(23_032_545_280L, need);
    MemoryPlan exact = MemoryPlan.compute(pc(need + GIB).withExperts(ExpertsMode.RESIDENT));
    assertTrue(exact.fits(), exact.refusal());
    assertEquals(0, exact.freeBytes());
    MemoryPlan short1 = MemoryPlan.compute(pc(need + GIB - 1).withExperts(ExpertsMode.RESIDENT));
    assertFalse(short1.fits());
    assertEquals(1, short1.shortfallBytes());
  }

  private static PlanRequest pc(long memoryBytes) {
    return at32k(Fixtures.linuxBytes(memoryBytes), seed(), Backend.PC).withPools(KvFormat.INT8);
  }

  /** strata-ref resident on 48 GiB: 47 GiB - dense - scratch 4,018,176 - KV - every expert. */
  @Test
  void aResidentStrataRefPlanCountsItsScratch() {
    MemoryPlan p =
        MemoryPlan.compute(
            at32k(linux(48), seed(), Backend.CPU_REFERENCE).withExperts(ExpertsMode.RESIDENT));
    assertEquals(6_377_472, p.scratchBytes());
    assertEquals(27_426_942_976L, p.freeBytes());
    assertEquals(47 * GIB - DENSE - 6_377_472 - KV_32K - 24_576 * SLOT, p.freeBytes());
  }

  /** A model without experts has nothing to stream and no "holds every expert" note. */
  @Test
  void aDenseModelHasNoArenaNote() {
    MemoryPlan p =
        MemoryPlan.compute(
            PlanRequest.of(mac(16), Fixtures.dense(4 * GIB, 8_192), Backend.METAL)
                .withContext(8_192));
    assertTrue(p.fits());
    assertEquals(List.of(), p.notes());
    assertEquals(2 * GIB, p.pageCacheHeadroomBytes());
  }

  /** A model whose expert tensors hold no bytes is planned as one without experts. */
  @Test
  void expertsOfNoBytesArePlannedAsNone() {
    MemoryPlan p = MemoryPlan.compute(at32k(mac(16), seed(0), Backend.METAL));
    assertEquals(new ExpertArena(0, 0, 0, 0, 0), p.arena());
    assertEquals(2 * GIB, p.pageCacheHeadroomBytes());
    assertEquals(List.of(), p.notes());
  }
}
