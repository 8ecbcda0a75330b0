package dev.strata.launcher.preflight;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.ffm.VerifiedLibrary;
import dev.strata.engine.flags.EngineArgs;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.EnvPolicy;
import dev.strata.engine.host.AvailableMemory;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.plan.LaunchMemory;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * One preflight run ({@link Preflight}): the checks in order, each filling its part of the report.
 * The config, kv, library, host and plan checks are here; the model's and the engine's own are
 * {@link ModelCheck} and {@link EngineCheck}.
 */
final class PreflightRun {
  final EngineConfig config;
  final Path configPath;
  final HostFacts here;
  final String where;
  final Map<String, String> engineEnv;
  final Map<String, String> inheritedSwitches;

  /** The launcher's own environment (the cache folder of the routing profile: RoutingCache). */
  final Map<String, String> processEnv;

  final AvailableMemory availableNow;
  final List<Preflight.Check> checks = new ArrayList<>();
  Backend backend;
  EngineArgs engineArgs;
  KvDecision.Accepted kv;
  Path library;
  VerifiedLibrary verified;
  GgufModel model;
  PlanRequest planRequest;
  MemoryPlan plan;
  List<String> engineArgv;
  Preflight.EngineVerdict engine;
  String engineNote;

  /**
   * Whether the engine's own check may load a library the config does not pin: the launch loads it
   * anyway; a dry run and a plan load only a pinned one (docs/LAUNCH.md, "What a dry run runs").
   */
  boolean loadUnpinned = true;

  /**
   * @param availableNow the memory available now on {@code here} (the probe's), or null: a host
   *     file's machine, or a probe that could not read it
   */
  PreflightRun(
      EngineConfig config,
      Path configPath,
      HostFacts here,
      Map<String, String> inherited,
      AvailableMemory availableNow) {
    this.config = config;
    this.availableNow = availableNow;
    this.configPath = configPath;
    this.here = here;
    this.where = configPath.toString();
    // What the engine will see: the inherited STRATA_* switches, then the config's env on top.
    this.processEnv = inherited;
    this.inheritedSwitches = new TreeMap<>();
    inherited.forEach(
        (k, v) -> {
          if (k.startsWith(Preflight.ENGINE_SWITCH_PREFIX)
              && !Preflight.TOOLKIT_ENV.contains(k)
              && !config.env().containsKey(k)) {
            inheritedSwitches.put(k, v);
          }
        });
    Map<String, String> env = new TreeMap<>(inheritedSwitches);
    env.putAll(config.env());
    this.engineEnv = Collections.unmodifiableMap(env);
  }

  Preflight.Report run(boolean full) {
    checkConfig(); // config errors are thrown: exit 2 in every mode
    try {
      checkKv();
      if (full) {
        checkLibrary();
      }
      ModelCheck.run(this);
      checkHost();
      checkPlan(full);
      checkMemoryNow(full);
      if (full) {
        EngineCheck.run(this, verified, true);
      } else {
        loadUnpinned = false;
        EngineCheck.forPlan(this);
      }
      return report(null);
    } catch (PreflightRefused r) {
      if (verified != null) {
        verified.close(); // nothing will load it
        verified = null;
      }
      return report(r);
    } catch (RuntimeException e) {
      if (verified != null) {
        verified.close();
      }
      throw e;
    }
  }

  Preflight.Report report(StrataException refusal) {
    return new Preflight.Report(
        configPath,
        config,
        backend,
        engineArgv != null ? engineArgv : config.args(),
        engineArgs,
        config.env(),
        kv,
        library,
        model,
        here,
        plan,
        engine,
        engineNote,
        checks,
        refusal,
        verified);
  }

  void ok(String name, String detail) {
    checks.add(new Preflight.Check(name, Preflight.Status.OK, detail));
  }

  void warn(String name, String detail) {
    checks.add(new Preflight.Check(name, Preflight.Status.WARN, detail));
  }

  PreflightRefused refuse(String name, PreflightRefused r) {
    checks.add(new Preflight.Check(name, Preflight.Status.REFUSED, r.getMessage()));
    return r;
  }

  void checkConfig() {
    backend = Backend.fromId(config.engine().backend());
    if (backend == null) {
      throw configError("engine.backend: unknown backend '" + config.engine().backend() + "'");
    }
    // parsed once, by the config itself (EngineConfig): a config from ConfigCodec.read has it
    engineArgs = config.engineArgs();
    if (engineArgs == null) {
      throw configError(
          config.parsed().problem() != null
              // the flag table's verdict, strata-ref's pool rule included (PoolRule)
              ? "args: " + config.parsed().problem()
              : "args: not checked for the " + backend.id() + " backend");
    }
    try {
      EnvPolicy.validate(config.env());
    } catch (StrataException e) {
      throw configError(e.getMessage());
    }
    List<String> shards = config.model().shards();
    if (shards.isEmpty()) {
      throw configError("model.shards is empty: list the model's shards, first shard first");
    }
    Path argModel = resolve(engineArgs.model().toString());
    engineArgv = withAbsolutePaths(config.args(), argModel);
    Path firstShard = resolve(shards.getFirst());
    if (!argModel.equals(firstShard)) {
      throw configError(
          "args --model "
              + engineArgs.model()
              + " is not the first of model.shards ("
              + shards.getFirst()
              + "): make them agree, or rerun strata-setup");
    }
    ok(
        "config",
        backend.id()
            + " backend; "
            + config.args().size()
            + " args, "
            + config.env().size()
            + " env");
  }

  void checkKv() {
    if (!inheritedSwitches.isEmpty()) {
      warn(
          "env",
          "from your environment, not the config, the engine also gets "
              + inheritedSwitches.entrySet().stream()
                  .map(e -> e.getKey() + "=" + e.getValue())
                  .collect(Collectors.joining(" ")));
    }
    KvDecision d = KvRules.decide(backend, engineArgs.kv(), engineEnv);
    switch (d) {
      case KvDecision.Refused r -> throw refuse("kv", new PreflightRefused(r.message()));
      case KvDecision.Accepted a -> {
        kv = a;
        ok(
            "kv",
            a.pools().flagName()
                + " pools"
                + (a.requested() == null
                    ? " (default: no --kv)"
                    : " (--kv " + a.requested().flagName() + ")"));
      }
    }
  }

  void checkLibrary() {
    try {
      verified =
          LibraryTrust.check(resolve(config.engine().library()), config.engine().sha256(), where);
    } catch (PreflightRefused r) {
      throw refuse("library", r);
    }
    library = verified.checked().real();
    ok(
        "library",
        library
            + (verified.checked().pinned() ? " (sha256 matches the pin)" : " (sha256 not pinned)")
            + "; loads "
            + verified.loadedVia());
  }

  void checkHost() {
    if (backend == Backend.METAL && !here.isMac()) {
      throw refuse(
          "host",
          new PreflightRefused(
              "the config targets the metal backend but this machine is "
                  + here.os()
                  + " ("
                  + here.chip()
                  + "): it runs on a Mac; to plan it here, add "
                  + HostDiff.profileHint(config.host())
                  + "; to run here, use a cpu-reference config (strata-setup --engine-lib with"
                  + " strata-ref)"));
    }
    String diff = HostDiff.describe(config.host(), here);
    if (diff == null) {
      ok("host", "this machine is the config's host (" + here.chip() + ")");
    } else {
      warn(
          "host",
          "the config was made for another machine: " + diff + "; the plan is for this one");
    }
  }

  void checkPlan(boolean refuseWhenShort) {
    try {
      planRequest =
          // the pools of checkKv's decision: the launch decides the KV pools once
          PlanRequest.of(here, model.geometry(), backend, kv)
              .withContext(engineArgs.ctx())
              .withExperts(engineArgs.experts())
              .withEnv(engineEnv)
              .withMemBudgetMb(engineArgs.memBudgetMb())
              .withSpec(engineArgs.spec())
              .withRouting(routing())
              .withParallel(engineArgs.parallel());
      plan = MemoryPlan.compute(planRequest);
    } catch (IllegalArgumentException e) {
      throw refuse("plan", new PreflightRefused("memory plan: ", e));
    }
    if (plan.fits()) {
      ok("plan", "fits this machine");
    } else if (plan.kvFormatRefused()) {
      // not memory: no machine holds this model in these pools, so --plan refuses it too (exit 3)
      throw refuse("plan", new PreflightRefused(plan.refusal()));
    } else if (refuseWhenShort) {
      throw refuse(
          "plan",
          // the host planned for: this machine, or the --host-file's (never called "this machine")
          new PreflightRefused(plan.refusal() + " (planned for the " + here.chip() + ")"));
    } else {
      warn("plan", plan.refusal());
    }
  }

  /**
   * The model's recorded routing for the plan's expected reads (RoutingCache), or null; a check
   * line says which trace is used, or warns why one that is there is not.
   */
  private dev.strata.engine.plan.RoutingProfile routing() {
    if (model.geometry().expertSlots() == 0) {
      return null;
    }
    var shard = model.shards().getFirst();
    RoutingCache.Found f =
        RoutingCache.find(processEnv, System.getProperty("os.name"), shard.path(), shard.bytes());
    if (f.problem() != null) {
      warn("routing", f.problem() + "; expected reads from uniform routing");
    } else if (f.profile() != null) {
      ok("routing", "expected reads from the routing recorded in " + f.path());
    }
    return f.profile();
  }

  /**
   * The plan against the memory available now ({@link LaunchMemory}): a row when it fits; a lower
   * budget for this launch only (the engine's argv gets {@code --mem-budget-mb}, the plan is the
   * lowered one, a warning says so); or a refusal (a warning for {@code --plan}, as a plan that
   * does not fit). Nothing when the figure is unknown or the plan does not fit its own budget.
   */
  void checkMemoryNow(boolean refuseWhenShort) {
    if (availableNow == null || !plan.fits()) {
      return;
    }
    switch (LaunchMemory.decide(planRequest, plan, availableNow)) {
      case LaunchMemory.Fits f -> ok("memory", f.line().substring(MEMORY.length()));
      case LaunchMemory.Lowered l -> {
        plan = l.plan();
        engineArgv = withMemBudget(engineArgv, l.budgetMb());
        warn("memory", l.line());
      }
      case LaunchMemory.Refused r -> {
        if (refuseWhenShort) {
          throw refuse("memory", new PreflightRefused(r.line()));
        }
        warn("memory", r.line());
      }
    }
  }

  private static final String MEMORY = "memory: ";

  /** {@code args} with {@code --mem-budget-mb mb}: the value replaced, or the pair appended. */
  static List<String> withMemBudget(List<String> args, long mb) {
    List<String> out = new ArrayList<>(args);
    String flag = EngineFlags.MEM_BUDGET_MB;
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i).equals(flag) && i + 1 < out.size()) {
        out.set(i + 1, Long.toString(mb));
        return List.copyOf(out);
      }
      if (out.get(i).startsWith(flag + "=")) {
        out.set(i, flag + "=" + mb);
        return List.copyOf(out);
      }
    }
    out.add(flag);
    out.add(Long.toString(mb));
    return List.copyOf(out);
  }

  /**
   * The engine's argv: the config's args with the value of every path flag ({@code --model})
   * replaced by the path it names, resolved once against the config's folder.
   */
  static List<String> withAbsolutePaths(List<String> args, Path model) {
    List<String> out = new ArrayList<>(args);
    for (int i = 0; i + 1 < out.size(); i++) {
      if (out.get(i).equals(EngineFlags.MODEL)) {
        out.set(i + 1, model.toString());
      }
    }
    return List.copyOf(out);
  }

  /** {@code path} from the config, resolved against the config's folder when relative. */
  Path resolve(String path) {
    Path p = Path.of(path);
    Path base = configPath.toAbsolutePath().getParent();
    PreflightRefused shared = SharedFolder.relative(base, path, where);
    if (shared != null) {
      throw refuse("config", shared);
    }
    return (p.isAbsolute() || base == null ? p : base.resolve(p)).toAbsolutePath().normalize();
  }

  StrataException configError(String message) {
    return new StrataException(ExitCodes.USAGE, where + ": " + message);
  }
}
