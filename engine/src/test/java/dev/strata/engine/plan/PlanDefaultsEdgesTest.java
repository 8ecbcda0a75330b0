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
        List.of());
  }

  /** An arena of this many slots of a model of 1,000 slots, one token using 10. */
  private static ExpertArena arena(long slots) {
    return new ExpertArena(1, slots, 1_000, 10, slots);
  }

  @Test
  void streamKvMayTakeAQuarterOfTheBudgetAndNoMore() {
    // a budget of 4,003 B: a quarter is 1,000 B (rounded down)
    assertTrue(PlanDefaults.streamFitsWithMargin(plan(9_000, 4_003, 1_000, arena(40), 0, null)));
    assertFalse(PlanDefaults.streamFitsWithMargin(plan(9_000, 4_003, 1_001, arena(40), 0, null)));
  }

  @Test
  void streamArenaNeedsFourTokensOfExpertsOrEveryExpert() {
    assertTrue(PlanDefaults.streamFitsWithMargin(plan(9_000, 4_000, 0, arena(40), 0, null)));
    assertFalse(PlanDefaults.streamFitsWithMargin(plan(9_000, 4_000, 0, arena(39), 0, null)));
    // a model of 20 slots whose arena holds all 20: fewer than 4 tokens' 40, and enough
    ExpertArena all = new ExpertArena(1, 20, 20, 10, 20);
    assertTrue(PlanDefaults.streamFitsWithMargin(plan(9_000, 4_000, 0, all, 0, null)));
  }

  @Test
  void aRefusedPlanNeverFitsWithMargin() {
    assertFalse(PlanDefaults.streamFitsWithMargin(plan(9_000, 4_000, 0, arena(40), 0, "short")));
    assertFalse(PlanDefaults.residentFitsWithMargin(plan(9_000, 4_000, 0, arena(40), 900, "no")));
  }

  @Test
  void residentLeavesATenthOfUsableFree() {
    // usable 9,009 B: a tenth is 900 B (rounded down)
    assertTrue(PlanDefaults.residentFitsWithMargin(plan(9_009, 4_000, 0, arena(40), 900, null)));
    assertFalse(PlanDefaults.residentFitsWithMargin(plan(9_009, 4_000, 0, arena(40), 899, null)));
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
    PlanDefaults d =
        PlanDefaults.compute(mac(16), Fixtures.dense(4 * GIB, 262_144), Backend.METAL, Map.of());
    assertEquals(
        new PlanDefaults(262_144, ExpertsMode.RESIDENT, 10, 9_898, KvFormat.INT8, true), d);
  }

  /**
   * A dense 6 GiB model on the same Mac: resident leaves 2,274,486,954 B free at 131,072 but only
   * 613,542,570 at 262,144, under a tenth of usable: resident at 131,072.
   */
  @Test
  void residentStopsAtTheFirstContextWithoutMargin() {
    PlanDefaults d =
        PlanDefaults.compute(mac(16), Fixtures.dense(6 * GIB, 262_144), Backend.METAL, Map.of());
    assertEquals(
        new PlanDefaults(131_072, ExpertsMode.RESIDENT, 10, 9_898, KvFormat.INT8, true), d);
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
    PlanDefaults dense =
        PlanDefaults.compute(mac(16), Fixtures.dense(4 * GIB, 131_072), Backend.METAL, Map.of());
    assertEquals(131_072, dense.context());
    assertEquals(ExpertsMode.RESIDENT, dense.experts());
  }

  /** A model that does not say its trained context (0) is not capped: 256K on a 48 GiB Mac. */
  @Test
  void anUnknownTrainedContextCapsNothing() {
    PlanDefaults d =
        PlanDefaults.compute(mac(48), Fixtures.withTrainedContext(0), Backend.METAL, Map.of());
    assertEquals(
        new PlanDefaults(262_144, ExpertsMode.RESIDENT, 10, 35_840, KvFormat.INT8, true), d);
    PlanDefaults dense =
        PlanDefaults.compute(mac(16), Fixtures.dense(4 * GIB, 0), Backend.METAL, Map.of());
    assertEquals(262_144, dense.context());
    assertEquals(ExpertsMode.RESIDENT, dense.experts());
  }
}
