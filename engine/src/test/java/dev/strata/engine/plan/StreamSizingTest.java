package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.GIB;
import static dev.strata.engine.plan.Fixtures.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ModelGeometry;
import org.junit.jupiter.api.Test;

/**
 * Stream mode's sizes and its advice (docs/PLAN.md) at their boundaries, with figures chosen so the
 * arithmetic is done by hand.
 */
class StreamSizingTest {
  private static final long MIB = 1L << 20;

  /** int8 cells of 2 KV heads of 256 (1,056 B) in 12 QSA layers: 12,672 B per token. */
  private static final long PER_TOKEN = 12_672;

  private static final UsableMemory WHOLE_16 =
      new UsableMemory(16 * GIB, 16 * GIB, UsableMemory.Rule.WHOLE_MEMORY);

  private static KvPools kv(KvFormat format, long bytes) {
    return new KvPools(format, 0, 1_056, 12, bytes);
  }

  /**
   * 100 slots of 100 MiB (one token: 10), dense + KV = 2,000 B, 64 stand-by slots by rule: a budget
   * of exactly 2,000 B + every expert holds them all and streams nothing; one byte less streams,
   * with 64 stand-by slots, 2 GiB headroom and (10,000 - 6,400 - 2,048) MiB - 1 B for the arena: 15
   * slots.
   */
  @Test
  void theArenaHoldsEveryExpertFromTheExactBudgetThatHoldsThem() {
    StandbySlots rule = new StandbySlots(false, 64, "rule");
    long base = 2_000;
    long all = 100 * 100 * MIB;
    assertEquals(
        new StreamSizing.Stream(
            new StandbySlots(false, 0, "the arena holds every expert: nothing streams"),
            0,
            0,
            base,
            all,
            100),
        hundredSlots(base + all, rule));
    StreamSizing.Stream streams = hundredSlots(base + all - 1, rule);
    long fixed = base + 6_400 * MIB + 2 * GIB;
    assertEquals(
        new StreamSizing.Stream(rule, 6_400 * MIB, 2 * GIB, fixed, 1_552 * MIB - 1, 15), streams);
  }

  /** STRATA_ARENA_BARE (strata-ref's measurement switch): no stand-by, no headroom. */
  @Test
  void bareStreamsWithoutStandbyOrHeadroom() {
    StreamSizing.Stream s =
        StreamSizing.stream(
            WHOLE_16,
            2_000 + 30 * 100 * MIB + 5,
            1_000,
            kv(KvFormat.INT8, 1_000),
            new StandbySlots(true, 576, "chain on"),
            seed(),
            100 * MIB,
            100,
            10,
            true);
    assertEquals(0, s.standby().slots());
    assertEquals(0, s.headroom());
    assertEquals(2_000, s.fixed());
    assertEquals(30, s.slots());
  }

  /** 100 slots of 100 MiB, one token using 10, beside 1,000 B dense and 1,000 B of KV. */
  private static StreamSizing.Stream hundredSlots(long budget, StandbySlots rule) {
    return StreamSizing.stream(
        WHOLE_16, budget, 1_000, kv(KvFormat.INT8, 1_000), rule, seed(), 100 * MIB, 100, 10, false);
  }

  /**
   * A model without experts streams nothing but is still a stream plan: no stand-by slot (the model
   * has none to bound it by), the page-cache headroom kept, an arena of 0 slots.
   */
  @Test
  void aModelWithoutExpertsKeepsTheHeadroom() {
    ModelGeometry dense = Fixtures.dense(4 * GIB, 8_192);
    StreamSizing.Stream s =
        StreamSizing.stream(
            WHOLE_16,
            10 * GIB,
            4 * GIB,
            kv(KvFormat.INT8, 0),
            new StandbySlots(true, 576, "chain on"),
            dense,
            0,
            0,
            0,
            false);
    assertEquals(0, s.standby().slots());
    assertEquals(0, s.standbyBytes());
    assertEquals(2 * GIB, s.headroom());
    assertEquals(4 * GIB, s.available());
    assertEquals(0, s.slots());
  }

  @Test
  void headroomIsTwoGibOrAnEighthOfMemory() {
    assertEquals(2 * GIB, StreamSizing.pageCacheHeadroom(8 * GIB));
    assertEquals(2 * GIB, StreamSizing.pageCacheHeadroom(16 * GIB));
    assertEquals(2 * GIB + 1, StreamSizing.pageCacheHeadroom(16 * GIB + 8));
    assertEquals(16 * GIB, StreamSizing.pageCacheHeadroom(128 * GIB));
  }

  /**
   * The advice's context: (budget - (fixed - KV) - one token's experts) / bytes per token - 128.
   * Here fixed - KV = 30,000 B and one token's experts 20,000 B, so a budget of 50,000 B + n ×
   * 12,672 B allows n - 128 tokens.
   */
  private static String advice(
      long cells, KvFormat format, ModelGeometry model, UsableMemory memory) {
    StreamSizing.Stream stream = new StreamSizing.Stream(null, 0, 0, 30_500, 0, 0);
    return StreamSizing.advice(
        "use", memory, 50_000 + cells * PER_TOKEN, 0, kv(format, 500), stream, 20_000, model);
  }

  private static String advice(long cells) {
    return advice(cells, KvFormat.INT8, seed(), WHOLE_16);
  }

  /**
   * --mem-budget-mb set and below the plan's own budget: it is the bound the advice names, with
   * what the engine may use without it; set at or above the plan's own, or absent, it is not named.
   */
  @Test
  void aBindingMemBudgetIsNamedInTheAdvice() {
    StreamSizing.Stream stream = new StreamSizing.Stream(null, 0, 0, 30_500, 0, 0);
    // WHOLE_16: 16 GiB usable, 15 GiB budget without the flag; a 1 MiB flag binds
    long mib = UsableMemory.MIB;
    assertEquals(
        "the model does not fit even streamed at the smallest context within --mem-budget-mb 1;"
            + " raise or remove --mem-budget-mb (without it the engine may use 15.00 GiB)",
        StreamSizing.advice(
            "use", WHOLE_16, mib, 1, kv(KvFormat.INT8, 500), stream, 2 * mib, seed()));
    assertEquals(
        "use a smaller context (--ctx 1 fits) or --kv q4_0, or raise or remove --mem-budget-mb"
            + " (without it the engine may use 15.00 GiB)",
        StreamSizing.advice(
            "use",
            WHOLE_16,
            50_000 + 129 * PER_TOKEN,
            1,
            kv(KvFormat.INT8, 500),
            stream,
            20_000,
            seed()));
    // the same budget without the flag (a machine that small): the machine is the bound
    assertEquals(
        "the model does not fit even streamed at the smallest context; use a machine with more"
            + " memory",
        StreamSizing.advice(
            "use", WHOLE_16, mib, 0, kv(KvFormat.INT8, 500), stream, 2 * mib, seed()));
  }

  @Test
  void aSmallerContextIsAdvisedFromOneToken() {
    assertEquals("use a smaller context (--ctx 1 fits) or --kv q4_0", advice(129));
    assertEquals(
        "the model does not fit even streamed at the smallest context; use a machine with more"
            + " memory",
        advice(128));
  }

  @Test
  void theAdvisedContextIsRoundedToWholeKibFrom1024() {
    assertEquals("use a smaller context (--ctx 1023 fits) or --kv q4_0", advice(1_023 + 128));
    assertEquals("use a smaller context (--ctx 1024 fits) or --kv q4_0", advice(1_024 + 128));
    assertEquals("use a smaller context (--ctx 1024 fits) or --kv q4_0", advice(2_047 + 128));
    assertEquals("use a smaller context (--ctx 2048 fits) or --kv q4_0", advice(2_048 + 128));
  }

  @Test
  void theAdvisedContextNeverPassesTheTrainedOne() {
    assertEquals("use a smaller context (--ctx 262144 fits) or --kv q4_0", advice(300_128));
    // 300,000 → 299,008 (292 × 1024) when the model does not say its trained context
    assertEquals(
        "use a smaller context (--ctx 299008 fits) or --kv q4_0",
        advice(300_128, KvFormat.INT8, Fixtures.withTrainedContext(0), WHOLE_16));
  }

  @Test
  void q4IsAdvisedOnlyWhereItHelpsAndCanHoldTheHeads() {
    assertEquals(
        "use a smaller context (--ctx 1 fits)", advice(129, KvFormat.Q4_0, seed(), WHOLE_16));
    assertEquals(
        "use a smaller context (--ctx 1 fits)",
        advice(129, KvFormat.INT8, Fixtures.withHeadDim(128), WHOLE_16));
  }

  @Test
  void onAMacTheAdviceNamesTheWiredLimit() {
    String mac = "raise iogpu.wired_limit_mb or use a Mac with more memory";
    for (UsableMemory.Rule rule :
        new UsableMemory.Rule[] {UsableMemory.Rule.TWO_THIRDS, UsableMemory.Rule.THREE_QUARTERS}) {
      UsableMemory m = new UsableMemory(16 * GIB, 8 * GIB, rule);
      assertEquals(
          "the model does not fit even streamed at the smallest context; " + mac,
          advice(128, KvFormat.INT8, seed(), m));
    }
    UsableMemory wired = new UsableMemory(16 * GIB, 8 * GIB, UsableMemory.Rule.WIRED_LIMIT);
    // issue 28: the sysctl set this low is the bound, not the machine's memory; its value is named
    assertEquals(
        "the model does not fit even streamed at the smallest context; the host's"
            + " iogpu.wired_limit_mb is 8,192 MiB of its 16.00 GiB, all the GPU may wire: raise it"
            + " (sudo sysctl iogpu.wired_limit_mb=N), or set it to 0 for the OS default",
        advice(128, KvFormat.INT8, seed(), wired));
  }

  /** Pools with no layer add nothing per token: no context helps. */
  @Test
  void noKvLayerMeansNoContextAdvice() {
    StreamSizing.Stream stream = new StreamSizing.Stream(null, 0, 0, 0, 0, 0);
    assertEquals(
        "the model does not fit even streamed at the smallest context; use a machine with more"
            + " memory",
        StreamSizing.advice(
            "use",
            WHOLE_16,
            GIB,
            0,
            new KvPools(KvFormat.INT8, 0, 1_056, 0, 0),
            stream,
            0,
            seed()));
  }
}
