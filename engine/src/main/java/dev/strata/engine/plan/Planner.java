package dev.strata.engine.plan;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.text.ByteSize;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The arithmetic behind {@link MemoryPlan#compute} (docs/PLAN.md): the notes, the dense part, the
 * KV pools, then stream or resident experts and, when they do not fit, the refusal and its advice.
 * strata-ref plans with the same rules in engine/native/src/memory.c.
 */
final class Planner {
  private Planner() {}

  /**
   * What every plan of one configuration holds whatever its mode and outcome.
   *
   * @param dense the main model's non-expert tensors
   * @param state the recurrent state of the hybrid layers
   * @param drafter the MTP drafter's weights when planned, else 0
   */
  private record Base(
      Backend backend,
      ExpertsMode experts,
      long context,
      UsableMemory memory,
      long budget,
      long dense,
      long state,
      long drafter,
      List<String> notes) {

    /** The plan with the parts that differ by mode and outcome. */
    MemoryPlan plan(
        KvPools kv, Held held, long scratch, long free, long shortfall, String refusal) {
      return plan(kv, held, scratch, free, shortfall, refusal, null);
    }

    MemoryPlan plan(
        KvPools kv,
        Held held,
        long scratch,
        long free,
        long shortfall,
        String refusal,
        ExpectedReads reads) {
      return new MemoryPlan(
          backend,
          experts,
          context,
          memory,
          MemoryPlan.SAFETY_MARGIN,
          budget,
          dense,
          state,
          drafter,
          kv,
          held.standby(),
          held.standbyBytes(),
          held.headroom(),
          held.arena(),
          scratch,
          free,
          shortfall,
          refusal,
          notes,
          reads);
    }
  }

  /** The experts' part of a plan: arena, stand-by slots and page-cache headroom. */
  private record Held(StandbySlots standby, long standbyBytes, long headroom, ExpertArena arena) {}

  /** See {@link MemoryPlan#compute}. */
  static MemoryPlan plan(PlanRequest request) {
    HostFacts host = request.host();
    ModelGeometry model = request.model();
    long context = request.context();
    ExpertsMode experts = request.experts();
    KvFormat pools = request.pools();
    Backend backend = request.backend();
    Map<String, String> env = request.env();
    long memBudgetMb = request.memBudgetMb();
    long spec = request.spec();
    if (context < 1) {
      throw new IllegalArgumentException("context must be at least 1, got " + context);
    }
    List<KvFormat> allocated = KvRules.poolFormats(backend);
    if (!allocated.contains(pools)) {
      throw new IllegalArgumentException(
          backend.id()
              + " allocates "
              + String.join(" or ", allocated.stream().map(KvFormat::flagName).toList())
              + " pools, not "
              + pools.flagName()
              + ": pass the pools KvRules.decide chose");
    }
    List<String> notes = new ArrayList<>(request.kvNotes());
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
    long budget = MemoryPlan.budget(memory, memBudgetMb);
    long own = MemoryPlan.budget(memory, 0);
    if (memBudgetMb > own / UsableMemory.MIB) {
      notes.add(
          "memory: --mem-budget-mb "
              + memBudgetMb
              + " is above what this machine gives the engine (usable "
              + Units.count(memory.usableBytes() / UsableMemory.MIB)
              + " MiB - margin "
              + Units.count(MemoryPlan.SAFETY_MARGIN / UsableMemory.MIB)
              + " MiB = "
              + Units.count(own / UsableMemory.MIB)
              + " MiB); the budget is capped to "
              + Units.count(own / UsableMemory.MIB)
              + " MiB");
    }
    long state = model.stateBytes();
    long drafter = spec > 0 ? model.drafterBytes() : 0;
    if (spec > 0 && !model.hasDrafter()) {
      notes.add(PlanWords.fill(PlanWords.NO_DRAFTER, spec, model.architecture()));
    }
    Base base =
        new Base(
            backend, experts, context, memory, budget, model.denseBytes(), state, drafter, notes);
    // Everything the engine holds besides the KV pools and the experts.
    long dense = Math.addExact(Math.addExact(model.denseBytes(), state), drafter);
    String denseText =
        ByteSize.gib(model.denseBytes())
            + (state > 0 ? PlanWords.fill(PlanWords.RECURRENT_STATE_TERM, ByteSize.gib(state)) : "")
            + (drafter > 0 ? PlanWords.fill(PlanWords.DRAFTER_TERM, ByteSize.gib(drafter)) : "");
    StandbySlots rule = StandbySlots.decide(host, backend, env);

    String cannotHold = KvPlanRules.refusal(pools, model, backend);
    if (cannotHold != null) {
      // The pools cannot hold this model's head vectors: a refusal, not a crash.
      KvPools none = new KvPools(pools, KvFormat.cells(context), 0, model.qsaLayerCount(), 0);
      ExpertArena empty = new ExpertArena(model.expertBytes(), 0, model.expertSlots(), 0, 0);
      return base.plan(none, new Held(rule, 0, 0, empty), 0, 0, 0, cannotHold);
    }
    KvPools kv = KvPools.of(pools, model, context, spec, request.parallel());

    long slotBytes = model.expertBytes();
    long modelSlots = slotBytes > 0 ? model.expertSlots() : 0;
    long tokenSlots =
        slotBytes > 0 ? Math.multiplyExact((long) model.expertsUsed(), model.moeLayers()) : 0;
    long tokenBytes = Math.multiplyExact(tokenSlots, slotBytes);

    long scratch = backend == Backend.CPU_REFERENCE ? RefScratch.bytes(model) : 0;
    StreamSizing.Stream stream =
        StreamSizing.stream(
            memory,
            budget,
            dense + scratch,
            kv,
            rule,
            model,
            slotBytes,
            modelSlots,
            tokenSlots,
            backend == Backend.CPU_REFERENCE && KvRules.kvRotOn(env.get(StreamSizing.ENV_BARE)));
    // the advice after a lead ("use", "use --experts stream with"): the same figures either way
    Advice advice = new Advice(memory, budget, memBudgetMb, kv, stream, tokenBytes, model);
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
              : PlanWords.fill(
                  PlanWords.STREAM_REFUSAL,
                  Units.count(tokenSlots),
                  ByteSize.gib(tokenBytes),
                  denseText,
                  ByteSize.gib(kv.bytes()),
                  ByteSize.gib(stream.standbyBytes()),
                  ByteSize.gib(stream.headroom()),
                  scratchTerm(scratch),
                  ByteSize.gib(budget),
                  ByteSize.gibUp(shortfall),
                  advice.after(PlanWords.LEAD_STREAM));
      Held held = new Held(stream.standby(), stream.standbyBytes(), stream.headroom(), arena);
      ExpectedReads reads = fits && modelSlots > 0 ? reads(request, arena, notes) : null;
      return base.plan(
          kv, held, scratch, budget - stream.fixed() - arenaBytes, shortfall, refusal, reads);
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
          PlanWords.fill(
              PlanWords.RESIDENT_REFUSAL,
              denseText,
              ByteSize.gib(kv.bytes()),
              ByteSize.gib(allExperts),
              scratchTerm(scratch),
              ByteSize.gib(need),
              ByteSize.gib(budget),
              ByteSize.gib(memory.usableBytes()),
              ByteSize.gib(MemoryPlan.SAFETY_MARGIN),
              ByteSize.gibUp(need - budget),
              streamFits ? PlanWords.USE_STREAM : advice.after(PlanWords.LEAD_RESIDENT));
    }
    Held held = new Held(none, 0, 0, arena);
    return base.plan(kv, held, scratch, budget - need, fits ? 0 : need - budget, refusal);
  }

  /**
   * The stream arena's expected reads: from the request's routing trace when it was recorded on a
   * model of this geometry (else a note says why it is not used), else from uniform routing.
   */
  private static ExpectedReads reads(PlanRequest request, ExpertArena arena, List<String> notes) {
    RoutingProfile profile = request.routing();
    if (profile != null && !ExpectedReads.fitsModel(profile, arena)) {
      notes.add(
          "routing: "
              + profile.source()
              + " was recorded on a model of "
              + profile.experts()
              + " experts x "
              + profile.moeLayers()
              + " MoE layers, "
              + profile.used()
              + " used, not this one's: expected reads from uniform routing");
      profile = null;
    }
    return ExpectedReads.of(arena, ExpectedReads.policy(request.env()), profile);
  }

  /** The figures {@link StreamSizing#advice} words its advice from, whichever the lead. */
  private record Advice(
      UsableMemory memory,
      long budget,
      long memBudgetMb,
      KvPools kv,
      StreamSizing.Stream stream,
      long tokenBytes,
      ModelGeometry model) {
    String after(String lead) {
      return StreamSizing.advice(lead, memory, budget, memBudgetMb, kv, stream, tokenBytes, model);
    }
  }

  /** " + scratch X.XX" where the plan has the engine's scratch (strata-ref), else nothing. */
  private static String scratchTerm(long scratch) {
    return scratch > 0 ? PlanWords.fill(PlanWords.SCRATCH_TERM, ByteSize.gib(scratch)) : "";
  }
}
