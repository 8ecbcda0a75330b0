package dev.strata.engine.plan;

import dev.strata.engine.Backend;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import java.util.List;
import java.util.Map;

/**
 * The defaults the generator writes (issue 6, docs/GOLDEN.md, default identity). They are computed
 * as if {@code --kv} were absent — this class takes no KV format at all — so opting into q4_0 never
 * moves a default: the config with {@code --kv q4_0} is the default one with that pair appended.
 *
 * @param context the largest standard context whose plan fits with margin in the chosen mode
 *     (stream first; when resident is chosen, the largest the resident plan allows), capped by the
 *     model's trained context
 * @param experts resident when the resident plan fits with margin at that context, else stream
 * @param threads performance cores (at least 1, at most {@link EngineFlags#MAX_THREADS})
 * @param memBudgetMb floor((usable − margin) / MiB): the engine's {@code --mem-budget-mb}
 * @param pools the KV pools the defaults were planned with: the backend's default path
 * @param contextFits whether some standard context fits with margin; when false {@code context} is
 *     the smallest one and the plan at it says why it does not fit
 */
public record PlanDefaults(
    long context,
    ExpertsMode experts,
    int threads,
    long memBudgetMb,
    KvFormat pools,
    boolean contextFits) {

  /** The contexts the wizard offers and the default is chosen from, ascending. */
  public static final List<Long> STANDARD_CONTEXTS =
      List.of(4_096L, 8_192L, 16_384L, 32_768L, 65_536L, 131_072L, 262_144L);

  /** With margin, the KV pools take at most 1/this of the budget. */
  public static final int KV_SHARE_DIVISOR = 4;

  /** With margin, the stream arena holds at least this many tokens' worth of experts. */
  public static final int ARENA_TOKEN_MULTIPLE = 4;

  /** With margin, a resident plan leaves at least 1/this of the usable memory free. */
  public static final int RESIDENT_FREE_DIVISOR = 10;

  /** Computes the defaults for a model on a host. Seven plans at most: O(1). */
  public static PlanDefaults compute(
      HostFacts host, ModelGeometry model, Backend backend, Map<String, String> env) {
    KvFormat pools = defaultPools(backend, env);
    PlanRequest request = PlanRequest.of(host, model, backend).withPools(pools).withEnv(env);
    long trained = model.trainedContext();
    long chosen = 0;
    for (long ctx : STANDARD_CONTEXTS) {
      if (trained > 0 && ctx > trained) {
        break;
      }
      MemoryPlan plan =
          MemoryPlan.compute(request.withContext(ctx).withExperts(ExpertsMode.STREAM));
      if (streamFitsWithMargin(plan)) {
        chosen = ctx;
      }
    }
    boolean contextFits = chosen > 0;
    long context = contextFits ? chosen : STANDARD_CONTEXTS.getFirst();
    if (trained > 0 && context > trained) {
      context = trained;
    }
    PlanRequest residentRequest = request.withExperts(ExpertsMode.RESIDENT);
    MemoryPlan resident = MemoryPlan.compute(residentRequest.withContext(context));
    ExpertsMode experts =
        residentFitsWithMargin(resident) ? ExpertsMode.RESIDENT : ExpertsMode.STREAM;
    if (experts == ExpertsMode.RESIDENT) {
      // The largest context the chosen mode allows: resident plans hold no stand-by slots and no
      // page-cache headroom, so they may allow more than the stream rule above.
      for (long ctx : STANDARD_CONTEXTS) {
        if (ctx <= context || (trained > 0 && ctx > trained)) {
          continue;
        }
        MemoryPlan larger = MemoryPlan.compute(residentRequest.withContext(ctx));
        if (!residentFitsWithMargin(larger)) {
          break;
        }
        context = ctx;
        resident = larger;
      }
    }
    int threads =
        Math.min(
            EngineFlags.MAX_THREADS,
            host.perfCores() > 0 ? host.perfCores() : Math.max(1, host.cpuCores()));
    long budgetMb = resident.budgetBytes() / UsableMemory.MIB;
    return new PlanDefaults(context, experts, threads, budgetMb, pools, contextFits);
  }

  /** The pools of the default path: what KvRules chooses when the config has no {@code --kv}. */
  public static KvFormat defaultPools(Backend backend, Map<String, String> env) {
    return KvRules.defaultPath(backend, env).pools();
  }

  /**
   * A stream plan fits "with margin" when it fits, its KV pools take at most 1/4 of the budget, and
   * its arena holds at least 4 tokens' experts (or every expert of the model).
   */
  public static boolean streamFitsWithMargin(MemoryPlan plan) {
    if (!plan.fits()) {
      return false;
    }
    boolean kvShare = plan.kv().bytes() <= plan.budgetBytes() / KV_SHARE_DIVISOR;
    ExpertArena arena = plan.arena();
    boolean arenaRoom =
        arena.holdsEveryExpert() || arena.slots() >= ARENA_TOKEN_MULTIPLE * arena.tokenSlots();
    return kvShare && arenaRoom;
  }

  /** A resident plan fits "with margin" when it fits and leaves 10% of usable memory free. */
  public static boolean residentFitsWithMargin(MemoryPlan plan) {
    return plan.fits() && plan.freeBytes() >= plan.memory().usableBytes() / RESIDENT_FREE_DIVISOR;
  }
}
