package dev.strata.engine.plan;

import dev.strata.engine.Backend;
import dev.strata.engine.flags.EngineArgs;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * One configuration to plan: the only input of {@link MemoryPlan#compute} (docs/PLAN.md).
 *
 * <p>Made by {@link #of}, which takes what has no default (the machine, the model, the engine) and
 * sets everything else as the engine runs when the config gives no such flag: the defaults of the
 * flag table's rows ({@link EngineFlags#defaults}: {@code --ctx 4096}, {@code --experts stream},
 * {@code --mem-budget-mb 0} = none, {@code --spec 0} = off), no environment, and the KV pools of
 * the default path (no {@code --kv}: {@link KvRules#defaultPath}, int8 on Metal and strata-ref,
 * fp16 on the PC engine). The {@code with…} methods change one field each and return a new request.
 *
 * @param host the machine the plan is for
 * @param model the model's geometry
 * @param backend the engine that will run
 * @param context the context in tokens ({@code --ctx}); below 1 {@link MemoryPlan#compute} throws
 * @param experts where the experts live ({@code --experts})
 * @param pools the format the KV pools are allocated in, after KvRules (fp16 and k8v4 never reach
 *     the Metal or strata-ref pools: {@link MemoryPlan#compute} throws for them)
 * @param kvNotes the KV decision's notes (such as the fp16 → int8 mapping on Metal); they come
 *     first in the plan's notes
 * @param env the engine's environment as the config sets it (the prompt switches)
 * @param memBudgetMb the engine's {@code --mem-budget-mb}, 0 = none: below the plan's own budget in
 *     whole MiB it lowers the budget to exactly that many MiB ({@link MemoryPlan#budget})
 * @param spec the engine's {@code --spec}: above 0 the MTP drafter's weights and KV pools are
 *     planned when the model has a drafter; a model without one runs without drafting, and a note
 *     says so
 * @param routing a recorded routing trace of this model ({@link RoutingProfile}), or null: the
 *     plan's expected reads per token come from it when its geometry is the model's, else from
 *     uniform routing ({@link ExpectedReads})
 * @param parallel the engine's {@code --parallel}: sequences held at once, each with its own KV
 *     pools ({@link KvPools#sequences}); at least 1
 */
public record PlanRequest(
    HostFacts host,
    ModelGeometry model,
    Backend backend,
    long context,
    ExpertsMode experts,
    KvFormat pools,
    List<String> kvNotes,
    Map<String, String> env,
    long memBudgetMb,
    long spec,
    RoutingProfile routing,
    int parallel) {

  public PlanRequest {
    KvPools.requireSequences("parallel", parallel);
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(backend, "backend");
    Objects.requireNonNull(experts, "experts");
    Objects.requireNonNull(pools, "pools");
    kvNotes = List.copyOf(kvNotes);
    // a copy that keeps what the caller's map holds (Map.copyOf would refuse a null value)
    env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
  }

  /**
   * The plan of the engine run with {@code --model} alone on this machine: every other field at the
   * default named in the class comment.
   */
  public static PlanRequest of(HostFacts host, ModelGeometry model, Backend backend) {
    return of(host, model, backend, KvRules.defaultPath(backend, Map.of()));
  }

  /**
   * {@link #of(HostFacts, ModelGeometry, Backend)} with the pools and notes of a KV decision the
   * caller already made (a launch decides once, in preflight, and plans with that decision).
   */
  public static PlanRequest of(
      HostFacts host, ModelGeometry model, Backend backend, KvDecision.Accepted kv) {
    EngineArgs absent = EngineFlags.defaults();
    return new PlanRequest(
        host,
        model,
        backend,
        absent.ctx(),
        absent.experts(),
        kv.pools(),
        kv.notes(),
        Map.of(),
        absent.memBudgetMb(),
        absent.spec(),
        null,
        absent.parallel());
  }

  /** This request at another context, in tokens. */
  public PlanRequest withContext(long tokens) {
    return with(f -> f.context = tokens);
  }

  /** This request with the experts in another place. */
  public PlanRequest withExperts(ExpertsMode mode) {
    return with(f -> f.experts = mode);
  }

  /** This request with the pools of a KV decision and its notes. */
  public PlanRequest withKv(KvDecision.Accepted kv) {
    return with(f -> f.kv(kv.pools(), kv.notes()));
  }

  /** This request with pools of this format and no KV notes. */
  public PlanRequest withPools(KvFormat format) {
    return with(f -> f.kv(format, List.of()));
  }

  /**
   * This request with the engine's environment. The KV pools stay as they are (without {@code --kv}
   * they do not depend on it: {@link dev.strata.engine.kv.KvRules#decide}).
   */
  public PlanRequest withEnv(Map<String, String> engineEnv) {
    return with(f -> f.env = engineEnv);
  }

  /** This request with the engine's {@code --mem-budget-mb} (0 = none). */
  public PlanRequest withMemBudgetMb(long mb) {
    return with(f -> f.memBudgetMb = mb);
  }

  /** This request with the engine's {@code --spec} (0 = off). */
  public PlanRequest withSpec(long draftTokens) {
    return with(f -> f.spec = draftTokens);
  }

  /** This request with a recorded routing trace of the model (null: none, uniform routing). */
  public PlanRequest withRouting(RoutingProfile profile) {
    return with(f -> f.routing = profile);
  }

  /** This request with the engine's {@code --parallel} (sequences held at once, at least 1). */
  public PlanRequest withParallel(int sequences) {
    return with(f -> f.parallel = sequences);
  }

  /** A copy of this request with what {@code change} sets, checked by the canonical constructor. */
  private PlanRequest with(Consumer<Fields> change) {
    Fields f = new Fields();
    change.accept(f);
    return new PlanRequest(
        host,
        model,
        backend,
        f.context,
        f.experts,
        f.pools,
        f.kvNotes,
        f.env,
        f.memBudgetMb,
        f.spec,
        f.routing,
        f.parallel);
  }

  /**
   * The fields a wither may change, as a scratch copy of this request's (host, model and backend
   * stay).
   */
  private final class Fields {
    long context = PlanRequest.this.context;
    ExpertsMode experts = PlanRequest.this.experts;
    KvFormat pools = PlanRequest.this.pools;
    List<String> kvNotes = PlanRequest.this.kvNotes;
    Map<String, String> env = PlanRequest.this.env;
    long memBudgetMb = PlanRequest.this.memBudgetMb;
    long spec = PlanRequest.this.spec;
    RoutingProfile routing = PlanRequest.this.routing;
    int parallel = PlanRequest.this.parallel;

    /** The KV pools and the notes that come with them, changed together. */
    void kv(KvFormat format, List<String> notes) {
      pools = format;
      kvNotes = notes;
    }
  }
}
