package dev.strata.engine.plan;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.text.ByteSize;
import java.util.Map;

/**
 * The trade the wizard shows next to the KV question: at one context, the KV bytes of the default
 * path and of q4_0, what q4_0 saves, and how many stream-arena slots that wins on this host.
 *
 * @param context the context in tokens
 * @param defaultFormat the default path's pools (int8 on Metal and strata-ref)
 * @param defaultKvBytes KV bytes under the default pools
 * @param q4Available whether q4_0 can hold this model (head_dim 256)
 * @param q4KvBytes KV bytes under q4_0 (0 when unavailable)
 * @param bytesSaved defaultKvBytes − q4KvBytes (0 when unavailable)
 * @param arenaSlotsWon stream-arena slots of the q4_0 plan minus those of the default plan: the
 *     same measure as upstream's "+241" (0 when the arena already holds every expert)
 */
public record KvComparison(
    long context,
    KvFormat defaultFormat,
    long defaultKvBytes,
    boolean q4Available,
    long q4KvBytes,
    long bytesSaved,
    long arenaSlotsWon) {

  /**
   * Compares at a context. Slots are counted in stream mode whatever mode the user picks: only a
   * streaming arena grows with the bytes q4_0 frees.
   */
  public static KvComparison at(
      HostFacts host, ModelGeometry model, long context, Backend backend, Map<String, String> env) {
    KvFormat base = PlanDefaults.defaultPools(backend, env);
    PlanRequest stream =
        PlanRequest.of(host, model, backend)
            .withContext(context)
            .withExperts(ExpertsMode.STREAM)
            .withEnv(env);
    MemoryPlan basePlan = MemoryPlan.compute(stream.withPools(base));
    if (base == KvFormat.Q4_0 || model.headDim() != 256) {
      return new KvComparison(context, base, basePlan.kv().bytes(), false, 0, 0, 0);
    }
    MemoryPlan q4Plan = MemoryPlan.compute(stream.withPools(KvFormat.Q4_0));
    long saved = basePlan.kv().bytes() - q4Plan.kv().bytes();
    long won = q4Plan.arena().slots() - basePlan.arena().slots();
    return new KvComparison(
        context, base, basePlan.kv().bytes(), true, q4Plan.kv().bytes(), saved, won);
  }

  /**
   * One line for the wizard, e.g. {@code 32768: int8 0.39 GiB, q4_0 0.21 GiB; q4_0 saves 0.18 GiB
   * (189,480,960 B), +241 arena slots}.
   */
  public String summary() {
    String base =
        context + ": " + defaultFormat.flagName() + " " + ByteSize.gib(defaultKvBytes) + " GiB";
    if (!q4Available) {
      return base + "; q4_0 needs head_dim 256";
    }
    return base
        + ", q4_0 "
        + ByteSize.gib(q4KvBytes)
        + " GiB; q4_0 saves "
        + ByteSize.gib(bytesSaved)
        + " GiB ("
        + Units.count(bytesSaved)
        + " B), "
        + (arenaSlotsWon >= 0 ? "+" : "")
        + Units.count(arenaSlotsWon)
        + " arena slots";
  }
}
