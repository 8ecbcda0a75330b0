package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.GIB;
import static dev.strata.engine.plan.Fixtures.mac;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The "with margin" rules of the defaults (docs/PLAN.md, "Defaults") at their boundaries, on plans
 * made by hand, and the choice of context on models whose figures are worked by hand.
 */
class PlanDefaultsEdgesTest {

  /** A plan with these figures and nothing else of note. */
  private static MemoryPlan plan(
      long usable, long budget, long kvBytes, ExpertArena arena, long free, String refusal) {
    return new MemoryPlan(
        Backend.METAL,
        ExpertsMode.STREAM,
        4_096,
        new UsableMemory(usable, usable, UsableMemory.Rule.WIRED_LIMIT),
        GIB,
        budget,
        0,
        0,
        0,
        new KvPools(KvFormat.INT8, 4_224, 1_056, 12, kvBytes),
        new StandbySlots(true, 0, "none"),
        0,
        0,
        arena,
        0,
        free,
        0,
        refusal,
        List.of(),
        null);
  }

  /** An arena of this many slots of a model of 1,000 slots, one token using 10. */
  private static ExpertArena arena(long slots) {
    return new ExpertArena(1, slots, 1_000, 10, slots);
  }

  /** Whether a fitting stream plan with this budget, KV and arena fits with margin. */
  private static boolean stream(long budget, long kvBytes, ExpertArena arena) {
    return PlanDefaults.streamFitsWithMargin(plan(9_000, budget, kvBytes, arena, 0, null));
  }

  /** Whether a fitting resident plan with this usable memory and free bytes fits with margin. */
  private static boolean resident(long usable, long free) {
    return PlanDefaults.residentFitsWithMargin(plan(usable, 4_000, 0, arena(40), free, null));
  }

  @Test
  void streamKvMayTakeAQuarterOfTheBudgetAndNoMore() {
    // a budget of 4,003 B: a quarter is 1,000 B (rounded down)
    assertTrue(stream(4_003, 1_000, arena(40)));
    assertFalse(stream(4_003, 1_001, arena(40)));
  }

  @Test
  void streamArenaNeedsFourTokensOfExpertsOrEveryExpert() {
    assertTrue(stream(4_000, 0, arena(40)));
    assertFalse(stream(4_000, 0, arena(39)));
    // a model of 20 slots whose arena holds all 20: fewer than 4 tokens' 40, and enough
    assertTrue(stream(4_000, 0, new ExpertArena(1, 20, 20, 10, 20)));
  }

  @Test
  void aRefusedPlanNeverFitsWithMargin() {
    assertFalse(PlanDefaults.streamFitsWithMargin(plan(9_000, 4_000, 0, arena(40), 0, "short")));
    assertFalse(PlanDefaults.residentFitsWithMargin(plan(9_000, 4_000, 0, arena(40), 900, "no")));
  }

  @Test
  void residentLeavesATenthOfUsableFree() {
    // usable 9,009 B: a tenth is 900 B (rounded down)
    assertTrue(resident(9_009, 900));
    assertFalse(resident(9_009, 899));
  }

  /**
   * A dense 4 GiB model (no experts) on a 16 GiB Mac: usable 11,453,246,122 B, budget
   * 10,379,504,298 B. KV = (ctx + 128) × 1,056 × 12. Stream with margin stops at 131,072 (its KV,
   * 1,662,566,400 B, is under a quarter of the budget, 2,594,876,074; 262,144's 3,323,510,784 is
   * not). Resident leaves 4,421,970,602 B free at 131,072 and 2,761,026,218 at 262,144, both over a
   * tenth of usable (1,145,324,612): resident, and the larger context it allows.
   */
  @Test
  void residentTakesTheLargestContextItAllows() {
    assertEquals(residentOn16(262_144), denseOn16(4, 262_144));
  }

  /** The defaults of a dense model of this many GiB on a 16 GiB Mac. */
  private static PlanDefaults denseOn16(long denseGib, long trained) {
    return PlanDefaults.compute(
        mac(16), Fixtures.dense(denseGib * GIB, trained), Backend.METAL, Map.of());
  }

  /** Resident at this context, 10 threads, the 16 GiB Mac's 9,898 MiB, int8. */
  private static PlanDefaults residentOn16(long context) {
    return new PlanDefaults(context, ExpertsMode.RESIDENT, 10, 9_898, KvFormat.INT8, true);
  }

  /**
   * A dense 6 GiB model on the same Mac: resident leaves 2,274,486,954 B free at 131,072 but only
   * 613,542,570 at 262,144, under a tenth of usable: resident at 131,072.
   */
  @Test
  void residentStopsAtTheFirstContextWithoutMargin() {
    assertEquals(residentOn16(131_072), denseOn16(6, 262_144));
  }

  /**
   * A trained context that is a standard size is offered, in both modes. On a 24 GiB Mac the seed
   * streams (resident needs 2.5 GiB dense + every expert, 18.56 GiB, over the 15 GiB budget).
   */
  @Test
  void aTrainedContextOfAStandardSizeIsTheDefault() {
    PlanDefaults d =
        PlanDefaults.compute(mac(24), Fixtures.withTrainedContext(32_768), Backend.METAL, Map.of());
    assertEquals(32_768, d.context());
    assertEquals(ExpertsMode.STREAM, d.experts());
    assertTrue(d.contextFits());
    assertEquals(residentOn16(131_072), denseOn16(4, 131_072));
  }

  /** A model that does not say its trained context (0) is not capped: 256K on a 48 GiB Mac. */
  @Test
  void anUnknownTrainedContextCapsNothing() {
    PlanDefaults d =
        PlanDefaults.compute(mac(48), Fixtures.withTrainedContext(0), Backend.METAL, Map.of());
    assertEquals(
        new PlanDefaults(262_144, ExpertsMode.RESIDENT, 10, 35_840, KvFormat.INT8, true), d);
    assertEquals(residentOn16(262_144), denseOn16(4, 0));
  }
}
