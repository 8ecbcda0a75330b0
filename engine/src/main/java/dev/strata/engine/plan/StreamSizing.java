package dev.strata.engine.plan;

import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.text.ByteSize;

/**
 * Stream mode's sizes (docs/PLAN.md): the expert arena, the model-bounded stand-by slots and the
 * page-cache headroom the SSD streaming reads through, and what to advise when the arena cannot
 * hold one token's experts. strata-ref's twin is engine/native/src/memory.c and startup.c.
 */
final class StreamSizing {
  private StreamSizing() {}

  /** strata-ref's {@code STRATA_ARENA_BARE=1}, read as the engine reads its switches (C atoi). */
  static final String ENV_BARE = "STRATA_ARENA_BARE";

  /** Stream mode's page-cache headroom is at least this much... */
  static final long HEADROOM_MIN = 2 * UsableMemory.GIB;

  /** ...and at least memory / this. */
  static final int HEADROOM_DIVISOR = 8;

  /** A suggested context is rounded down to whole multiples of this when it is at least one. */
  static final long CONTEXT_ROUNDING = 1024;

  /** The stream-mode figures, also used to advise a refused resident plan. */
  record Stream(
      StandbySlots standby,
      long standbyBytes,
      long headroom,
      long fixed,
      long available,
      long slots) {}

  /**
   * Stream mode. When the arena can hold every expert beside the rest, nothing streams: no stand-by
   * slots, no page-cache headroom (so a model that fits resident never fails streamed). Otherwise
   * the stand-by slots are bounded by the model ({@link StandbySlots#boundedBy}) and the arena by
   * the slots the stand-by leaves: never more slots in all than the model has. {@code bare}
   * (strata-ref's measurement switch {@value #ENV_BARE}, engine/native/src/memory.c) plans a
   * streaming arena with no stand-by slots and no page-cache headroom, so that a small model's
   * arena can be sized by the budget, as the engine then sizes it.
   */
  static Stream stream(
      UsableMemory memory,
      long budget,
      long dense,
      KvPools kv,
      StandbySlots rule,
      ModelGeometry model,
      long slotBytes,
      long modelSlots,
      long tokenSlots,
      boolean bare) {
    long base = Math.addExact(dense, kv.bytes());
    long allExperts = Math.multiplyExact(modelSlots, slotBytes);
    if (modelSlots > 0 && budget - base >= allExperts) {
      StandbySlots none =
          new StandbySlots(rule.promptGemm(), 0, "the arena holds every expert: nothing streams");
      return new Stream(none, 0, 0, base, budget - base, modelSlots);
    }
    StandbySlots standby =
        bare
            ? new StandbySlots(rule.promptGemm(), 0, ENV_BARE + "=1: no stand-by, no headroom")
            : rule.boundedBy(model.experts(), modelSlots, tokenSlots);
    long standbyBytes = Math.multiplyExact((long) standby.slots(), slotBytes);
    long headroom = bare ? 0 : pageCacheHeadroom(memory.totalBytes());
    long fixed = Math.addExact(base, standbyBytes + headroom);
    long available = budget - fixed;
    long slots =
        available > 0 && slotBytes > 0
            ? Math.min(available / slotBytes, modelSlots - standby.slots())
            : 0;
    return new Stream(standby, standbyBytes, headroom, fixed, available, slots);
  }

  /** Page-cache headroom of stream mode: max(2 GiB, memory / 8). */
  static long pageCacheHeadroom(long totalBytes) {
    return Math.max(HEADROOM_MIN, totalBytes / HEADROOM_DIVISOR);
  }

  /**
   * What to do when the stream arena cannot hold one token's experts: a smaller context or q4_0
   * when the KV pools are what crowds it out, else more memory for the GPU.
   *
   * <p>When {@code --mem-budget-mb} set the budget below the plan's own (usable − margin), it is
   * the bound, so the advice names it: raise or remove it (strata-ref's stream_advice, startup.c,
   * fills the same {@link PlanWords}).
   *
   * @param lead "use" for a stream plan, "use --experts stream with" for a resident one
   * @param memBudgetMb {@code --mem-budget-mb}, 0 when absent
   */
  static String advice(
      String lead,
      UsableMemory memory,
      long budget,
      long memBudgetMb,
      KvPools kv,
      Stream stream,
      long tokenBytes,
      ModelGeometry model) {
    long perCell = kv.bytesPerToken();
    long roomForKv = budget - (stream.fixed() - kv.bytes()) - tokenBytes;
    long maxContext = perCell > 0 ? roomForKv / perCell - KvFormat.EXTRA_CELLS : 0;
    // q4_0's rotation is FWHT-256: it can only be suggested for 256-value heads.
    boolean q4Possible = kv.format() != KvFormat.Q4_0 && model.headDim() == 256;
    // the flag lowered the budget (MemoryPlan.budget): it, not the machine, is the bound
    String flag =
        memBudgetMb > 0 && budget < MemoryPlan.budget(memory, 0)
            ? PlanWords.fill(PlanWords.RAISE_BUDGET, ByteSize.gib(MemoryPlan.budget(memory, 0)))
            : null;
    if (maxContext >= 1) {
      // Round down to whole KiB of tokens when there is room: users type such numbers.
      long suggested =
          maxContext >= CONTEXT_ROUNDING
              ? maxContext / CONTEXT_ROUNDING * CONTEXT_ROUNDING
              : maxContext;
      if (model.trainedContext() > 0) {
        // never suggest more than the model was trained for
        suggested = Math.min(suggested, model.trainedContext());
      }
      return PlanWords.fill(
          PlanWords.SMALLER_CONTEXT,
          lead,
          suggested,
          q4Possible ? PlanWords.OR_Q4 : "",
          flag != null ? PlanWords.fill(PlanWords.OR_FLAG, flag) : "");
    }
    if (flag != null) {
      return PlanWords.fill(PlanWords.NO_FIT_WITHIN_BUDGET, memBudgetMb, flag);
    }
    String limit =
        switch (memory.rule()) {
          case TWO_THIRDS, THREE_QUARTERS ->
              "raise iogpu.wired_limit_mb or use a Mac with more memory";
          // the sysctl, not the machine, is the bound (issue 28): name it and its value
          case WIRED_LIMIT ->
              "the host's iogpu.wired_limit_mb is "
                  + Units.count(memory.usableBytes() / UsableMemory.MIB)
                  + " MiB of its "
                  + ByteSize.gib(memory.totalBytes())
                  + " GiB, all the GPU may wire: raise it (sudo sysctl iogpu.wired_limit_mb=N),"
                  + " or set it to 0 for the OS default";
          default -> PlanWords.MORE_MEMORY;
        };
    return PlanWords.fill(PlanWords.NO_FIT, limit);
  }
}
