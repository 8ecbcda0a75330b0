package dev.strata.engine.gen;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.PoolRule;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanDefaults;
import dev.strata.engine.plan.PlanRequest;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The config generator: a pure, deterministic function of the host facts, the model's geometry and
 * shard paths, the answers, the engine library and the template. No file is read, no clock or
 * environment consulted: the same inputs give the same config, byte for byte once written.
 *
 * <p>{@code args} are, in order: {@code --model <first shard> --ctx N --experts MODE --threads P
 * --mem-budget-mb M}, then the template's base args, then {@code --kv FORMAT} at the very end and
 * only when asked. Every default is computed as if {@code --kv} were absent ({@link PlanDefaults}
 * takes no KV format), so adding {@code --kv q4_0} appends exactly that pair and moves no other
 * byte (docs/GOLDEN.md, default identity).
 */
public final class Generator {

  /** What the generator settled on, for {@link #WRITTEN}. */
  private record Settled(
      String firstShard, long context, ExpertsMode experts, PlanDefaults defaults, KvFormat kv) {}

  /** One flag the generator writes and its value (null: not written). */
  private record Write(String flag, Function<Settled, String> value) {}

  /**
   * The flags the generator writes itself, each once with where its value comes from: the answers,
   * else the plan's defaults; {@code --kv} only when asked.
   */
  private static final List<Write> WRITTEN =
      List.of(
          new Write(EngineFlags.MODEL, Settled::firstShard),
          new Write(EngineFlags.CTX, s -> Long.toString(s.context())),
          new Write(EngineFlags.EXPERTS, s -> s.experts().id()),
          new Write(EngineFlags.THREADS, s -> Integer.toString(s.defaults().threads())),
          new Write(EngineFlags.MEM_BUDGET_MB, s -> Long.toString(s.defaults().memBudgetMb())),
          new Write(EngineFlags.KV, s -> s.kv() == null ? null : s.kv().flagName()));

  /**
   * The engine flags the generator writes itself ({@link #WRITTEN}), from the answers and the
   * plan's defaults (a template may not set them: {@link Template}); every other flag comes from
   * the template.
   */
  public static final Set<String> WRITES =
      WRITTEN.stream().map(Write::flag).collect(Collectors.toUnmodifiableSet());

  private Generator() {}

  /**
   * The engine library a config names.
   *
   * @param path where it is (written as given)
   * @param sha256 its hash, pinned in {@code engine.sha256}; null when the file is not there yet
   */
  public record Library(String path, String sha256) {}

  /**
   * A generated config and the plan behind it.
   *
   * @param config what is written
   * @param plan the memory plan of exactly this config (with its KV format)
   * @param defaults the plan's defaults (computed without --kv), shown by the wizard
   */
  public record Generated(EngineConfig config, MemoryPlan plan, PlanDefaults defaults) {

    /**
     * This, when the plan fits: the one refusal of strata-setup (flags, answers file, wizard) and
     * the demo.
     *
     * @throws StrataException exit 3 ({@link ExitCodes#PREFLIGHT}) with the plan's refusal when the
     *     plan does not fit the host; exit 2 ({@link ExitCodes#USAGE}) when the KV format cannot
     *     hold the model at all (docs/SETUP.md: a KV format the backend refuses)
     */
    public Generated requireFits() {
      if (!plan.fits()) {
        throw new StrataException(
            plan.kvFormatRefused() ? ExitCodes.USAGE : ExitCodes.PREFLIGHT, plan.refusal());
      }
      return this;
    }
  }

  /**
   * Why a context cannot take the template's workload, worded for the one who chose it, or null:
   * strata-ref's pool rule ({@link PoolRule}), the very rule the config reader applies to the
   * written args.
   */
  public static String contextProblem(Template template, long context) {
    return contextProblem(template, context, EngineFlags.CTX);
  }

  /** {@link #contextProblem(Template, long)}, the context named {@code given} ({@code ctx}). */
  public static String contextProblem(Template template, long context, String given) {
    if (!PoolRule.applies(template.backend())) {
      return null;
    }
    long[] w = PoolRule.workload(template.values());
    return PoolRule.contextProblem(context, w[0], w[1], given);
  }

  /** The smallest context the template's workload fits in; 1 for a template without one. */
  public static long minContext(Template template) {
    if (!PoolRule.applies(template.backend())) {
      return 1;
    }
    long[] w = PoolRule.workload(template.values());
    return PoolRule.minContext(w[0], w[1]);
  }

  /**
   * Generates a config and its plan, whether or not the plan fits (the wizard shows a plan that
   * does not fit before asking again).
   */
  public static Generated plan(
      HostFacts host,
      ModelGeometry geometry,
      List<String> shards,
      Answers answers,
      Library library,
      Template template) {
    if (shards.isEmpty()) {
      throw new IllegalArgumentException("a model has at least one shard");
    }
    Backend backend = template.backend();
    Map<String, String> env = template.env();

    KvDecision.Accepted kv =
        KvRules.decide(backend, answers.kv(), env)
            .acceptedOr(m -> new StrataException(ExitCodes.USAGE, m));

    // on the default path's pools whatever --kv says (PlanDefaults never takes a KV decision)
    PlanDefaults defaults = PlanDefaults.compute(host, geometry, backend, env);
    long context = answers.context() != null ? answers.context() : defaults.context();
    String ctxProblem = EngineFlags.lookup(EngineFlags.CTX).kind().problem(Long.toString(context));
    if (ctxProblem != null) {
      throw new StrataException(ExitCodes.USAGE, EngineFlags.CTX + ": " + ctxProblem);
    }
    String poolProblem = contextProblem(template, context);
    if (poolProblem != null) {
      throw new StrataException(ExitCodes.USAGE, poolProblem);
    }
    PlanRequest request =
        PlanRequest.of(host, geometry, backend, kv).withContext(context).withEnv(env);
    ExpertsMode experts = answers.experts();
    if (experts == null) {
      // Like the context, decided on the default KV path: resident when it fits with margin.
      experts =
          answers.context() == null
              ? defaults.experts()
              : (PlanDefaults.residentFitsWithMargin(
                      MemoryPlan.compute(
                          request.withExperts(ExpertsMode.RESIDENT).withPools(defaults.pools())))
                  ? ExpertsMode.RESIDENT
                  : ExpertsMode.STREAM);
    }

    // Every value goes through the flag table: checked there, written in its row order (so --kv,
    // the last row, appends exactly its pair to the default config).
    Map<String, String> values = template.values();
    Settled settled = new Settled(shards.getFirst(), context, experts, defaults, answers.kv());
    for (Write w : WRITTEN) {
      String v = w.value().apply(settled);
      if (v != null) {
        values.put(w.flag(), v);
      }
    }
    List<String> args = EngineFlags.render(values, backend);

    EngineConfig config =
        new EngineConfig(
            EngineConfig.SCHEMA,
            new EngineConfig.Engine(backend.id(), library.path(), library.sha256()),
            new EngineConfig.Model(shards),
            host,
            args,
            env);
    MemoryPlan plan =
        MemoryPlan.compute(
            request
                .withExperts(experts)
                .withSpec(config.engineArgs().spec())
                .withParallel(config.engineArgs().parallel()));
    return new Generated(config, plan, defaults);
  }
}
