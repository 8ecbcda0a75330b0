package dev.strata.launcher.preflight;

import dev.strata.engine.Backend;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.ffm.VerifiedLibrary;
import dev.strata.engine.flags.EngineArgs;
import dev.strata.engine.host.AvailableMemory;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.write.ConfigPaths;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything {@code strata-launch} checks before the engine starts, in order: config, kv, library,
 * model, host, plan, memory (the plan against the memory available now), engine. A config error is
 * thrown at once (exit 2); a refusal (exit 3) ends the checks and is kept in the {@link Report}, so
 * {@code --dry-run} can show how far it got. The launch itself throws {@link Report#refusal()}.
 *
 * <p>The last check asks the engine itself (docs/LAUNCH.md "One truth"): the library is loaded and
 * {@code strata_engine_check} (ABI 2) is called with exactly the argv ({@link Report#args()}) and
 * environment the launch passes to {@code strata_engine_main}; a non-zero answer is a refusal
 * naming the engine's first error line. {@code --dry-run} and the launch run this same code, so
 * their verdicts agree. An ABI 1 engine has no check: the verdict is the launcher's own rules, and
 * the engine check says so (a warning).
 *
 * <p>Relative paths in a config (engine.library, model.shards, --model) are taken relative to the
 * config's folder, so a config and its model can move together; the engine gets {@code --model} as
 * that absolute path, never the config's text (it would resolve it against the working folder).
 */
public final class Preflight {
  /** Environment variables the engines read; inherited ones count like the config's. */
  public static final String ENGINE_SWITCH_PREFIX = "STRATA_";

  /**
   * The toolkit's own variables in that namespace, which no engine reads: inherited, they are not
   * named as the engine's switches (nor given to its check). {@code STRATA_CONFIG} the launch's
   * default config ({@link ConfigPaths#STRATA_CONFIG}), {@code STRATA_MEMINFO} the memory-now
   * source ({@link AvailableMemory#SOURCE_ENV}), {@code STRATA_PROBE} the Mac probe's mode ({@code
   * GpuProbeGuard}), {@code STRATA_API_KEY} {@code --serve}'s key ({@code ServeArgs}: a secret,
   * never printed), {@code STRATA_SHARED_DATA} the test suite's data folder ({@code .ci/run}
   * exports it).
   */
  public static final Set<String> TOOLKIT_ENV =
      Set.of(
          ConfigPaths.STRATA_CONFIG,
          AvailableMemory.SOURCE_ENV,
          "STRATA_PROBE",
          "STRATA_API_KEY",
          "STRATA_SHARED_DATA");

  /** How a check ended. */
  public enum Status {
    OK,
    WARN,
    REFUSED
  }

  /**
   * One check's outcome.
   *
   * @param name config, env, kv, library, model, host or plan
   * @param detail one line: what was found, or why it was refused
   */
  public record Check(String name, Status status, String detail) {}

  /**
   * What the engine said of this launch.
   *
   * @param name {@code strata_engine_name()}
   * @param abi the library's ABI version
   * @param checked whether the engine's own check ran (false: an ABI 1 engine, the launcher's rules
   *     decided)
   * @param code what the check returned (0: {@code strata_engine_main} would start)
   * @param firstError the check's first error line, or null
   * @param planLines the engine's {@code plan: item=...} lines
   */
  public record EngineVerdict(
      String name, int abi, boolean checked, int code, String firstError, List<String> planLines) {
    public EngineVerdict {
      planLines = List.copyOf(planLines);
    }
  }

  /**
   * What preflight found. Fields after a refusal are null (the checks stopped there).
   *
   * @param configPath the config file
   * @param config the config as read
   * @param backend the config's backend
   * @param args the engine's argv without argv[0]: the config's args, validated for the backend,
   *     with {@code --model} replaced by its absolute path (resolved against the config's folder)
   * @param engineArgs their typed view
   * @param env the config's env, validated
   * @param kv the KV decision (the pools the engine will allocate)
   * @param library the engine library's real path, checked (null for {@code --plan}); for messages
   *     only, never opened again
   * @param model the model read from its shards
   * @param here the machine the plan is for
   * @param plan the memory plan for {@code here}
   * @param engine what the engine's own check said; null when it did not run (a refusal before it,
   *     or {@code --plan} without a usable library)
   * @param engineNote for {@code --plan}: why the engine's items are not shown, or null
   * @param checks every check run, in order
   * @param refusal the refusal that stopped the checks, or null
   * @param verified the engine library as checked, held open: what the launch loads (null for
   *     {@code --plan} or when the checks stopped before it); closed by {@link #close()}
   */
  public record Report(
      Path configPath,
      EngineConfig config,
      Backend backend,
      List<String> args,
      EngineArgs engineArgs,
      Map<String, String> env,
      KvDecision.Accepted kv,
      Path library,
      GgufModel model,
      HostFacts here,
      MemoryPlan plan,
      EngineVerdict engine,
      String engineNote,
      List<Check> checks,
      StrataException refusal,
      VerifiedLibrary verified)
      implements AutoCloseable {
    public Report {
      checks = List.copyOf(checks);
    }

    /** Closes the checked library (its descriptor, or its private copy). */
    @Override
    public void close() {
      if (verified != null) {
        verified.close();
      }
    }

    public boolean refused() {
      return refusal != null;
    }

    /** Warnings to show even when the launch goes ahead. */
    public List<Check> warnings() {
      return checks.stream().filter(c -> c.status() == Status.WARN).toList();
    }
  }

  private Preflight() {}

  /**
   * Every check; the launch and {@code --dry-run}.
   *
   * @param inherited the launcher's own environment: the engine inherits it, so a {@code STRATA_*}
   *     switch set there (and not overridden by the config) counts for the KV rules and the plan
   */
  public static Report full(
      EngineConfig config, Path configPath, HostFacts here, Map<String, String> inherited) {
    return full(config, configPath, new Here(here, null), inherited);
  }

  /**
   * The machine a plan is for: its facts, and the memory available on it now (null: not known or
   * not this machine, and not checked; docs/LAUNCH.md "Memory available now").
   */
  public record Here(HostFacts facts, AvailableMemory now) {}

  /** {@link #full} on {@code here}, the plan checked against the memory available now. */
  public static Report full(
      EngineConfig config, Path configPath, Here here, Map<String, String> inherited) {
    return new PreflightRun(config, configPath, here.facts(), inherited, here.now()).run(true);
  }

  /**
   * What {@code --dry-run} runs: every check of {@link #full}, but the engine's own check only for
   * a library whose sha256 the config pins (loading a library runs its code: its constructors). An
   * unpinned library is not loaded; the verdict is the launcher's own, and the report says so.
   */
  public static Report forDryRun(
      EngineConfig config, Path configPath, Here here, Map<String, String> inherited) {
    PreflightRun run = new PreflightRun(config, configPath, here.facts(), inherited, here.now());
    run.loadUnpinned = false;
    return run.run(true);
  }

  /**
   * What {@code --plan} needs: config, kv, model, host — not the library, and a plan that does not
   * fit is shown, not refused.
   */
  public static Report forPlan(
      EngineConfig config, Path configPath, HostFacts here, Map<String, String> inherited) {
    return forPlan(config, configPath, new Here(here, null), inherited);
  }

  /** {@link #forPlan} on {@code here}, the plan checked against the memory available now. */
  public static Report forPlan(
      EngineConfig config, Path configPath, Here here, Map<String, String> inherited) {
    Report r = new PreflightRun(config, configPath, here.facts(), inherited, here.now()).run(false);
    if (r.refused()) {
      throw r.refusal();
    }
    return r;
  }
}
