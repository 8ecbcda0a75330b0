package dev.strata.engine.plan;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the engine will hold in memory for one configuration, and whether it fits (docs/PLAN.md).
 * Computed by {@link #compute}: a pure function of its inputs, O(1) in the context (no loop over
 * cells, layers or slots), so the wizard can plan every choice it shows.
 *
 * @param backend the engine that will run
 * @param experts where the experts live
 * @param context the context in tokens
 * @param memory the host's memory and what the engine may use of it
 * @param marginBytes the safety margin kept free of the plan (1 GiB)
 * @param budgetBytes usable − margin, never negative: everything below must fit in it
 * @param denseBytes every non-expert tensor
 * @param kv the KV pools
 * @param standby the prompt-GEMM stand-by rule; in resident mode its slot count is 0
 * @param standbyBytes stand-by slots × slot bytes
 * @param pageCacheHeadroomBytes stream mode: room kept for the page cache the SSD streaming reads
 *     through; 0 in resident mode
 * @param arena the experts kept in memory
 * @param scratchBytes the engine's own working buffers that the plan knows: strata-ref's (its
 *     attention queries and partials, the arena's books, the router's tables; formula in {@link
 *     #refScratchBytes}); 0 for the Metal and PC engines, whose buffers are not modelled
 * @param freeBytes what the budget leaves after everything planned (0 or less when it does not fit)
 * @param shortfallBytes how much is missing; 0 when the plan fits
 * @param refusal one line saying by how much it does not fit and what to do; null when it fits
 * @param notes lines for the log and the table (the KV decision's notes among them)
 */
public record MemoryPlan(
    Backend backend,
    ExpertsMode experts,
    long context,
    UsableMemory memory,
    long marginBytes,
    long budgetBytes,
    long denseBytes,
    KvPools kv,
    StandbySlots standby,
    long standbyBytes,
    long pageCacheHeadroomBytes,
    ExpertArena arena,
    long scratchBytes,
    long freeBytes,
    long shortfallBytes,
    String refusal,
    List<String> notes) {

  /**
   * The safety margin: llama.cpp's {@code --fit-target} default of 1024 MiB per device, the room
   * its fitting leaves free of every projected allocation.
   */
  public static final long SAFETY_MARGIN = UsableMemory.GIB;

  /** Stream mode's page-cache headroom is at least this much... */
  public static final long HEADROOM_MIN = 2 * UsableMemory.GIB;

  /** ...and at least memory / this. */
  public static final int HEADROOM_DIVISOR = 8;

  public MemoryPlan {
    notes = List.copyOf(notes);
  }

  /** Whether the plan fits; when it does not, {@link #refusal} says why and what to do. */
  public boolean fits() {
    return refusal == null;
  }

  /**
   * Plans with a KV decision from {@link dev.strata.engine.kv.KvRules#decide}: its pools size the
   * KV and its notes (such as the fp16 → int8 mapping on Metal) come first in the plan's notes.
   */
  public static MemoryPlan compute(
      HostFacts host,
      ModelGeometry model,
      long context,
      ExpertsMode experts,
      KvDecision.Accepted kv,
      Backend backend,
      Map<String, String> env) {
    return compute(host, model, context, experts, kv.pools(), kv.notes(), backend, env, 0);
  }

  /**
   * Plans with a KV decision and the engine's {@code --mem-budget-mb} (0 = none): a value below the
   * plan's own budget in whole MiB lowers the budget to exactly that many MiB ({@link #budget}).
   */
  public static MemoryPlan compute(
      HostFacts host,
      ModelGeometry model,
      long context,
      ExpertsMode experts,
      KvDecision.Accepted kv,
      Backend backend,
      Map<String, String> env,
      long memBudgetMb) {
    return compute(
        host, model, context, experts, kv.pools(), kv.notes(), backend, env, memBudgetMb);
  }

  /**
   * Plans one configuration.
   *
   * @param pools the format the KV pools are allocated in, after KvRules (int8 by default on Metal
   *     and strata-ref; fp16 and k8v4 never reach the Metal pools)
   * @param env the engine's environment as the config sets it (the prompt switches)
   * @throws IllegalArgumentException for a context below 1, or pools a backend never allocates
   */
  public static MemoryPlan compute(
      HostFacts host,
      ModelGeometry model,
      long context,
      ExpertsMode experts,
      KvFormat pools,
      Backend backend,
      Map<String, String> env) {
    return compute(host, model, context, experts, pools, List.of(), backend, env, 0);
  }

  /** Plans one configuration with the engine's {@code --mem-budget-mb} (0 = none). */
  public static MemoryPlan compute(
      HostFacts host,
      ModelGeometry model,
      long context,
      ExpertsMode experts,
      KvFormat pools,
      Backend backend,
      Map<String, String> env,
      long memBudgetMb) {
    return compute(host, model, context, experts, pools, List.of(), backend, env, memBudgetMb);
  }

  /**
   * The budget: usable − margin (never negative), lowered to {@code memBudgetMb} MiB when that is
   * set and below the plan's own budget in whole MiB. The generator writes exactly that whole-MiB
   * figure as {@code --mem-budget-mb}, so a generated config plans as if the flag were absent;
   * strata-ref applies the same rule (engine/native/src/memory.c).
   */
  public static long budget(UsableMemory memory, long memBudgetMb) {
    long plan = Math.max(0, memory.usableBytes() - SAFETY_MARGIN);
    if (memBudgetMb > 0 && memBudgetMb < plan / UsableMemory.MIB) {
      return memBudgetMb * UsableMemory.MIB;
    }
    return plan;
  }

  /** strata-ref splits decode attention into items of this many cells (engine/native/src). */
  static final long REF_SPLIT_CELLS = 2048;

  /**
   * strata-ref's own working buffers at a context, in bytes (engine/native/src/memory.c,
   * strata_memory_scratch_bytes, the same formula): the decode queries (QSA layers × KV heads ×
   * head_dim floats), the flash-decoding partials (QSA layers × ⌈cells / 2048⌉ × KV heads ×
   * (head_dim + 2) floats), one head's output (head_dim floats), and the arena's and router's
   * tables: 18 B per model slot (slot index, LRU key and links as int32, popularity order as
   * uint16) plus one double per expert.
   */
  public static long refScratchBytes(ModelGeometry model, long context) {
    long cells = KvFormat.cells(context);
    long splits = (cells + REF_SPLIT_CELLS - 1) / REF_SPLIT_CELLS;
    long q = model.qsaLayerCount();
    long queries = q * model.kvHeads() * model.headDim() * Float.BYTES;
    long partials =
        Math.multiplyExact(
            q * splits, (long) model.kvHeads() * (model.headDim() + 2) * Float.BYTES);
    long out = (long) model.headDim() * Float.BYTES;
    long books = model.expertSlots() * 18 + (long) model.experts() * Double.BYTES;
    return queries + partials + out + books;
  }

  private static MemoryPlan compute(
      HostFacts host,
      ModelGeometry model,
      long context,
      ExpertsMode experts,
      KvFormat pools,
      List<String> kvNotes,
      Backend backend,
      Map<String, String> env,
      long memBudgetMb) {
    if (context < 1) {
      throw new IllegalArgumentException("context must be at least 1, got " + context);
    }
    if (backend != Backend.PC && pools != KvFormat.INT8 && pools != KvFormat.Q4_0) {
      throw new IllegalArgumentException(
          backend.id()
              + " allocates int8 or q4_0 pools, not "
              + pools.flagName()
              + ": pass the pools KvRules.decide chose");
    }
    List<String> notes = new ArrayList<>(kvNotes);
    UsableMemory memory = UsableMemory.of(host, backend);
    if (memory.rule() == UsableMemory.Rule.WIRED_LIMIT
        && memory.usableBytes() == memory.totalBytes()) {
      notes.add(
          "memory: iogpu.wired_limit_mb="
              + host.wiredLimitMb()
              + " is at or above the physical memory; planned with the physical memory");
    }
    if (context > model.trainedContext() && model.trainedContext() > 0) {
      notes.add(
          "context: "
              + context
              + " is above the model's trained context "
              + model.trainedContext());
    }
    long budget = budget(memory, memBudgetMb);
    long dense = model.denseBytes();
    StandbySlots rule = StandbySlots.decide(host, backend, env);

    KvPools kv;
    try {
      kv = KvPools.of(pools, model, context);
    } catch (IllegalArgumentException e) {
      // The format cannot hold this model's head vectors: a refusal, not a crash.
      kv = new KvPools(pools, KvFormat.cells(context), 0, model.qsaLayerCount(), 0);
      String fix =
          pools == KvFormat.Q4_0 ? "drop --kv q4_0" : "this engine cannot run the model's KV";
      return refused(
          backend,
          experts,
          context,
          memory,
          budget,
          dense,
          kv,
          rule,
          model,
          notes,
          "kv: "
              + pools.flagName()
              + " pools cannot hold this model ("
              + e.getMessage()
              + "); "
              + fix);
    }

    long slotBytes = model.expertBytes();
    long modelSlots = slotBytes > 0 ? model.expertSlots() : 0;
    long tokenSlots =
        slotBytes > 0 ? Math.multiplyExact((long) model.expertsUsed(), model.moeLayers()) : 0;
    long tokenBytes = Math.multiplyExact(tokenSlots, slotBytes);

    long scratch = backend == Backend.CPU_REFERENCE ? refScratchBytes(model, context) : 0;
    Stream stream =
        stream(memory, budget, dense + scratch, kv, rule, slotBytes, modelSlots, tokenBytes);
    if (experts == ExpertsMode.STREAM) {
      long slots = stream.slots();
      if (slots >= modelSlots && modelSlots > 0) {
        notes.add(
            "experts: the stream arena holds every expert ("
                + Units.count(modelSlots)
                + " slots); nothing streams");
      }
      long arenaBytes = Math.multiplyExact(slots, slotBytes);
      ExpertArena arena = new ExpertArena(slotBytes, slots, modelSlots, tokenSlots, arenaBytes);
      boolean fits = stream.available() >= tokenBytes;
      long shortfall = fits ? 0 : tokenBytes - stream.available();
      String refusal =
          fits
              ? null
              : "stream: the expert arena cannot hold one token's experts ("
                  + Units.count(tokenSlots)
                  + " slots, "
                  + Units.gib(tokenBytes)
                  + " GiB) after dense "
                  + Units.gib(dense)
                  + " + KV "
                  + Units.gib(kv.bytes())
                  + " + stand-by "
                  + Units.gib(stream.standbyBytes())
                  + " + page-cache headroom "
                  + Units.gib(stream.headroom())
                  + scratchTerm(scratch)
                  + " GiB in the "
                  + Units.gib(budget)
                  + " GiB the engine may use; short by "
                  + Units.gibUp(shortfall)
                  + " GiB; "
                  + streamAdvice("use", memory, budget, kv, stream, tokenBytes, model);
      return new MemoryPlan(
          backend,
          experts,
          context,
          memory,
          SAFETY_MARGIN,
          budget,
          dense,
          kv,
          rule,
          stream.standbyBytes(),
          stream.headroom(),
          arena,
          scratch,
          budget - stream.fixed() - arenaBytes,
          shortfall,
          refusal,
          notes);
    }

    // Resident: every expert in memory, nothing streams, so no stand-by slots and no headroom.
    long allExperts = Math.multiplyExact(modelSlots, slotBytes);
    long need = Math.addExact(Math.addExact(dense + scratch, kv.bytes()), allExperts);
    ExpertArena arena = new ExpertArena(slotBytes, modelSlots, modelSlots, tokenSlots, allExperts);
    StandbySlots none =
        new StandbySlots(rule.promptGemm(), 0, "resident experts: no stand-by slots");
    boolean fits = need <= budget;
    String refusal = null;
    if (!fits) {
      boolean streamFits = stream.available() >= tokenBytes;
      refusal =
          "resident: dense "
              + Units.gib(dense)
              + " + KV "
              + Units.gib(kv.bytes())
              + " + every expert "
              + Units.gib(allExperts)
              + scratchTerm(scratch)
              + " = "
              + Units.gib(need)
              + " GiB, over the "
              + Units.gib(budget)
              + " GiB the engine may use ("
              + Units.gib(memory.usableBytes())
              + " GiB usable - "
              + Units.gib(SAFETY_MARGIN)
              + " GiB margin) by "
              + Units.gibUp(need - budget)
              + " GiB; "
              + (streamFits
                  ? "use --experts stream"
                  : streamAdvice(
                      "use --experts stream with", memory, budget, kv, stream, tokenBytes, model));
    }
    return new MemoryPlan(
        backend,
        experts,
        context,
        memory,
        SAFETY_MARGIN,
        budget,
        dense,
        kv,
        none,
        0,
        0,
        arena,
        scratch,
        budget - need,
        fits ? 0 : need - budget,
        refusal,
        notes);
  }

  /** " + scratch X.XX" where the plan has the engine's scratch (strata-ref), else nothing. */
  private static String scratchTerm(long scratch) {
    return scratch > 0 ? " + scratch " + Units.gib(scratch) : "";
  }

  /** The stream-mode figures, also used to advise a refused resident plan. */
  private record Stream(long standbyBytes, long headroom, long fixed, long available, long slots) {}

  private static Stream stream(
      UsableMemory memory,
      long budget,
      long dense,
      KvPools kv,
      StandbySlots rule,
      long slotBytes,
      long modelSlots,
      long tokenBytes) {
    long standbyBytes = Math.multiplyExact((long) rule.slots(), slotBytes);
    long headroom = pageCacheHeadroom(memory.totalBytes());
    long fixed = Math.addExact(Math.addExact(dense, kv.bytes()), standbyBytes + headroom);
    long available = budget - fixed;
    long slots = available > 0 && slotBytes > 0 ? Math.min(available / slotBytes, modelSlots) : 0;
    return new Stream(standbyBytes, headroom, fixed, available, slots);
  }

  /** Page-cache headroom of stream mode: max(2 GiB, memory / 8). */
  public static long pageCacheHeadroom(long totalBytes) {
    return Math.max(HEADROOM_MIN, totalBytes / HEADROOM_DIVISOR);
  }

  /**
   * What to do when the stream arena cannot hold one token's experts: a smaller context or q4_0
   * when the KV pools are what crowds it out, else more memory for the GPU.
   *
   * @param lead "use" for a stream plan, "use --experts stream with" for a resident one
   */
  private static String streamAdvice(
      String lead,
      UsableMemory memory,
      long budget,
      KvPools kv,
      Stream stream,
      long tokenBytes,
      ModelGeometry model) {
    long perCell = Math.multiplyExact(kv.cellBytes(), (long) kv.layers());
    long roomForKv = budget - (stream.fixed() - kv.bytes()) - tokenBytes;
    long maxContext = perCell > 0 ? roomForKv / perCell - KvFormat.EXTRA_CELLS : 0;
    // q4_0's rotation is FWHT-256: it can only be suggested for 256-value heads.
    boolean q4Possible = kv.format() != KvFormat.Q4_0 && model.headDim() == 256;
    if (maxContext >= 1) {
      // Round down to whole KiB of tokens when there is room: users type such numbers.
      long suggested = maxContext >= 1024 ? maxContext / 1024 * 1024 : maxContext;
      if (model.trainedContext() > 0) {
        // never suggest more than the model was trained for
        suggested = Math.min(suggested, model.trainedContext());
      }
      return lead
          + " a smaller context (--ctx "
          + suggested
          + " fits)"
          + (q4Possible ? " or --kv q4_0" : "");
    }
    String limit =
        memory.rule() == UsableMemory.Rule.TWO_THIRDS
                || memory.rule() == UsableMemory.Rule.THREE_QUARTERS
            ? "raise iogpu.wired_limit_mb or use a Mac with more memory"
            : "use a machine with more memory";
    return "the model does not fit even streamed at the smallest context; " + limit;
  }

  private static MemoryPlan refused(
      Backend backend,
      ExpertsMode experts,
      long context,
      UsableMemory memory,
      long budget,
      long dense,
      KvPools kv,
      StandbySlots rule,
      ModelGeometry model,
      List<String> notes,
      String refusal) {
    long slotBytes = model.expertBytes();
    ExpertArena empty = new ExpertArena(slotBytes, 0, model.expertSlots(), 0, 0);
    return new MemoryPlan(
        backend,
        experts,
        context,
        memory,
        SAFETY_MARGIN,
        budget,
        dense,
        kv,
        rule,
        0,
        0,
        empty,
        0,
        0,
        0,
        refusal,
        notes);
  }
}
