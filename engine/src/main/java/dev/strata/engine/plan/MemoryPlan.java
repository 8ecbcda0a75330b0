package dev.strata.engine.plan;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.text.ByteSize;
import java.util.List;
import java.util.Map;

/**
 * What the engine will hold in memory for one configuration, and whether it fits (docs/PLAN.md).
 * Computed by {@link #compute}: a pure function of its inputs, O(1) in the context (no loop over
 * cells, layers or slots), so the wizard can plan every choice it shows. The arithmetic is in
 * {@link Planner} (both modes), {@link StreamSizing} (stream mode's arena, stand-by and headroom,
 * and the advice when it is too small) and {@link RefScratch} (strata-ref's own buffers).
 *
 * @param backend the engine that will run
 * @param experts where the experts live
 * @param context the context in tokens
 * @param memory the host's memory and what the engine may use of it
 * @param marginBytes the safety margin kept free of the plan (1 GiB)
 * @param budgetBytes usable − margin, never negative: everything below must fit in it
 * @param denseBytes every non-expert tensor of the main model (the MTP drafter's are apart)
 * @param stateBytes per-sequence recurrent state of the hybrid layers (Gated DeltaNet, Mamba, short
 *     conv), f32 as llama.cpp allocates it; 0 for attention-only models (docs/MODELS.md)
 * @param drafterBytes the MTP drafter's weights, planned when {@code --spec} is above 0 and the
 *     model has a drafter; else 0
 * @param kv the KV pools
 * @param standby the prompt-GEMM stand-by rule; in resident mode its slot count is 0
 * @param standbyBytes stand-by slots × slot bytes
 * @param pageCacheHeadroomBytes stream mode: room kept for the page cache the SSD streaming reads
 *     through; 0 in resident mode
 * @param arena the experts kept in memory
 * @param scratchBytes the engine's own working buffers that the plan knows: strata-ref's (its
 *     forward pass's activations, one row of logits and the arena's books; formula in {@link
 *     RefScratch#bytes}); 0 for the Metal and PC engines, whose buffers are not modelled
 * @param freeBytes what the budget leaves after everything planned (0 or less when it does not fit)
 * @param shortfallBytes how much is missing; 0 when the plan fits
 * @param refusal one line saying by how much it does not fit and what to do; null when it fits
 * @param notes lines for the log and the table (the KV decision's notes among them)
 * @param reads the arena's expected read traffic per decoded token ({@link ExpectedReads}): for a
 *     MoE model's stream plan that fits; null for a dense model, a resident plan or a refusal
 */
public record MemoryPlan(
    Backend backend,
    ExpertsMode experts,
    long context,
    UsableMemory memory,
    long marginBytes,
    long budgetBytes,
    long denseBytes,
    long stateBytes,
    long drafterBytes,
    KvPools kv,
    StandbySlots standby,
    long standbyBytes,
    long pageCacheHeadroomBytes,
    ExpertArena arena,
    long scratchBytes,
    long freeBytes,
    long shortfallBytes,
    String refusal,
    List<String> notes,
    ExpectedReads reads) {

  /**
   * The safety margin: llama.cpp's {@code --fit-target} default of 1024 MiB per device, the room
   * its fitting leaves free of every projected allocation.
   */
  public static final long SAFETY_MARGIN = UsableMemory.GIB;

  public MemoryPlan {
    notes = List.copyOf(notes);
  }

  /** Whether the plan fits; when it does not, {@link #refusal} says why and what to do. */
  public boolean fits() {
    return refusal == null;
  }

  /**
   * Whether the plan is refused for its KV format rather than for memory: the pools cannot hold
   * this model's head vectors (say phi3's head_dim 96 in int8 pools). No amount of memory makes it
   * fit, so strata-setup exits 2 for it (a KV format the backend refuses), not 3.
   */
  public boolean kvFormatRefused() {
    return refusal != null && refusal.startsWith(KvPlanRules.PREFIX);
  }

  /**
   * Plans one configuration: a pure function of the request, O(1) in the context.
   *
   * @throws IllegalArgumentException for a context below 1, or pools a backend never allocates
   *     (fp16 and k8v4 on Metal and strata-ref: pass the pools {@link
   *     dev.strata.engine.kv.KvRules#decide} chose)
   */
  public static MemoryPlan compute(PlanRequest request) {
    MemoryPlan p = Planner.plan(request);
    if (p.fits() || request.parallel() == 1 || p.kvFormatRefused()) {
      return p;
    }
    return p.withRefusal(p.refusal() + PlanWords.PARALLEL_SEPARATOR + parallelAdvice(request, p));
  }

  /**
   * What a plan of {@code --parallel N > 1} that does not fit says about N: what the sequences'
   * pools weigh, and the largest N that fits (each sequence has its own pools: {@link
   * KvPools#sequences}), or that even one sequence does not. strata-ref's startup.c words the same
   * from the same {@link PlanWords}, re-planning with fewer sequences as this does.
   */
  static String parallelAdvice(PlanRequest request, MemoryPlan p) {
    int n = request.parallel();
    String weigh =
        PlanWords.fill(
            PlanWords.PARALLEL_WEIGH,
            n,
            n,
            n,
            ByteSize.iec(p.kv().bytesPerSequence()),
            ByteSize.iec(p.kv().bytes()));
    for (int m = n - 1; m >= 1; m--) {
      if (Planner.plan(request.withParallel(m)).fits()) {
        return weigh + PlanWords.fill(PlanWords.PARALLEL_FITS, m);
      }
    }
    return weigh + PlanWords.PARALLEL_NONE;
  }

  /** This plan with another refusal line. */
  private MemoryPlan withRefusal(String line) {
    return new MemoryPlan(
        backend,
        experts,
        context,
        memory,
        marginBytes,
        budgetBytes,
        denseBytes,
        stateBytes,
        drafterBytes,
        kv,
        standby,
        standbyBytes,
        pageCacheHeadroomBytes,
        arena,
        scratchBytes,
        freeBytes,
        shortfallBytes,
        line,
        notes,
        reads);
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

  /**
   * What a stream plan that actually streams holds besides the arena: dense + recurrent state +
   * drafter + KV + the model-bounded stand-by slots + page-cache headroom + scratch. A plan whose
   * arena holds every expert shows 0 stand-by and 0 headroom; a budget sized for "one token's
   * experts and a few more" must count them all the same, since under it the experts stream (the
   * launch's available-memory rule, LaunchMemory, sizes the smallest streaming plan with it).
   */
  public static long streamingFixedBytes(
      MemoryPlan open, ModelGeometry model, Map<String, String> env, HostFacts host) {
    ExpertArena a = open.arena();
    StandbySlots standby =
        StandbySlots.decide(host, open.backend(), env)
            .boundedBy(model.experts(), a.modelSlots(), a.tokenSlots());
    // strata-ref's measurement switch: no stand-by, no headroom (StreamSizing.ENV_BARE)
    boolean bare =
        open.backend() == Backend.CPU_REFERENCE
            && dev.strata.engine.kv.KvRules.kvRotOn(env.get(StreamSizing.ENV_BARE));
    return open.denseBytes()
        + open.stateBytes()
        + open.drafterBytes()
        + open.kv().bytes()
        + (bare ? 0 : (long) standby.slots() * a.slotBytes())
        + (bare ? 0 : StreamSizing.pageCacheHeadroom(open.memory().totalBytes()))
        + open.scratchBytes();
  }
}
