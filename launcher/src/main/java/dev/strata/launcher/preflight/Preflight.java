package dev.strata.launcher.preflight;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.ffm.LogLevel;
import dev.strata.engine.ffm.LogSink;
import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.ffm.VerifiedLibrary;
import dev.strata.engine.flags.EngineArgs;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.EnvPolicy;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanItems;
import dev.strata.launcher.run.EngineEnv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Everything {@code strata-launch} checks before the engine starts, in order: config, kv, library,
 * model, host, plan, engine. A config error is thrown at once (exit 2); a refusal (exit 3) ends the
 * checks and is kept in the {@link Report}, so {@code --dry-run} can show how far it got. The
 * launch itself throws {@link Report#refusal()}.
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
    return new Run(config, configPath, here, inherited).run(true);
  }

  /**
   * What {@code --plan} needs: config, kv, model, host — not the library, and a plan that does not
   * fit is shown, not refused.
   */
  public static Report forPlan(
      EngineConfig config, Path configPath, HostFacts here, Map<String, String> inherited) {
    Report r = new Run(config, configPath, here, inherited).run(false);
    if (r.refused()) {
      throw r.refusal();
    }
    return r;
  }

  /** One preflight run: fills the report's fields step by step. */
  private static final class Run {
    private final EngineConfig config;
    private final Path configPath;
    private final HostFacts here;
    private final String where;
    private final Map<String, String> engineEnv;
    private final Map<String, String> inheritedSwitches;
    private final List<Check> checks = new ArrayList<>();
    private Backend backend;
    private EngineArgs engineArgs;
    private KvDecision.Accepted kv;
    private Path library;
    private VerifiedLibrary verified;
    private GgufModel model;
    private MemoryPlan plan;
    private List<String> engineArgv;
    private EngineVerdict engine;
    private String engineNote;

    Run(EngineConfig config, Path configPath, HostFacts here, Map<String, String> inherited) {
      this.config = config;
      this.configPath = configPath;
      this.here = here;
      this.where = configPath.toString();
      // What the engine will see: the inherited STRATA_* switches, then the config's env on top.
      this.inheritedSwitches = new TreeMap<>();
      inherited.forEach(
          (k, v) -> {
            if (k.startsWith(ENGINE_SWITCH_PREFIX) && !config.env().containsKey(k)) {
              inheritedSwitches.put(k, v);
            }
          });
      Map<String, String> env = new TreeMap<>(inheritedSwitches);
      env.putAll(config.env());
      this.engineEnv = Collections.unmodifiableMap(env);
    }

    Report run(boolean full) {
      checkConfig(); // config errors are thrown: exit 2 in every mode
      try {
        checkKv();
        if (full) {
          checkLibrary();
        }
        checkModel();
        checkHost();
        checkPlan(full);
        if (full) {
          checkEngine(verified, true);
        } else {
          planEngineItems();
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

    private Report report(StrataException refusal) {
      return new Report(
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

    private void ok(String name, String detail) {
      checks.add(new Check(name, Status.OK, detail));
    }

    private void warn(String name, String detail) {
      checks.add(new Check(name, Status.WARN, detail));
    }

    private PreflightRefused refuse(String name, PreflightRefused r) {
      checks.add(new Check(name, Status.REFUSED, r.getMessage()));
      return r;
    }

    private void checkConfig() {
      backend = Backend.fromId(config.engine().backend());
      if (backend == null) {
        throw configError("engine.backend: unknown backend '" + config.engine().backend() + "'");
      }
      // parsed once, by the config itself (EngineConfig): a config from ConfigCodec.read has it
      engineArgs = config.engineArgs();
      if (engineArgs == null) {
        throw configError(
            config.parsed().problem() != null
                ? config.parsed().problem()
                : "args: not checked for the " + backend.id() + " backend");
      }
      try {
        EnvPolicy.validate(config.env());
      } catch (StrataException e) {
        throw configError(e.getMessage());
      }
      if (backend == Backend.CPU_REFERENCE) {
        // strata-ref's pool rule (engine/native/src/engine.c startup_rules), here too so an ABI 1
        // strata-ref (no strata_engine_check) gets the same verdict; OneTruthDifferentialTest pins
        // it
        long cells = KvFormat.cells(engineArgs.ctx());
        if ((long) engineArgs.promptTokens() + engineArgs.nPredict() > cells) {
          throw configError(
              "args: --prompt-tokens "
                  + engineArgs.promptTokens()
                  + " + --n-predict "
                  + engineArgs.nPredict()
                  + " exceed the pool's "
                  + cells
                  + " cells (--ctx "
                  + engineArgs.ctx()
                  + " + "
                  + KvFormat.EXTRA_CELLS
                  + "): lower them, or raise --ctx");
        }
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

    private void checkKv() {
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

    private void checkLibrary() {
      try {
        verified =
            LibraryTrust.check(resolve(config.engine().library()), config.engine().sha256(), where);
      } catch (PreflightRefused r) {
        throw refuse("library", r);
      }
      library = verified.real();
      ok(
          "library",
          library
              + (verified.pinned() ? " (sha256 matches the pin)" : " (sha256 not pinned)")
              + "; loads "
              + verified.loadedVia());
    }

    private void checkModel() {
      List<String> listed = config.model().shards();
      List<Path> paths = new ArrayList<>();
      for (int i = 0; i < listed.size(); i++) {
        Path p = resolve(listed.get(i));
        if (!Files.exists(p)) {
          throw refuse(
              "model",
              new PreflightRefused(
                  "model shard missing: "
                      + p
                      + " (model.shards["
                      + i
                      + "] in "
                      + where
                      + "): restore it, or rerun strata-setup --model for the shards you have"));
        }
        if (!Files.isRegularFile(p)) {
          throw refuse(
              "model",
              new PreflightRefused(
                  "model shard "
                      + p
                      + " is not a regular file (model.shards["
                      + i
                      + "] in "
                      + where
                      + ")"));
        }
        paths.add(p);
      }
      try {
        model = GgufReader.readModel(paths.getFirst());
      } catch (StrataException e) {
        throw refuse("model", new PreflightRefused(e.getMessage(), e));
      }
      List<Path> found = new ArrayList<>();
      for (GgufModel.Shard s : model.shards()) {
        found.add(real(s.path()));
      }
      List<Path> wanted = paths.stream().map(Preflight::real).toList();
      if (!found.equals(wanted)) {
        throw refuse(
            "model",
            new PreflightRefused(
                "model.shards in "
                    + where
                    + " lists "
                    + wanted.size()
                    + " shard(s) but the model's split set is "
                    + found.size()
                    + " ("
                    + found.getFirst().getFileName()
                    + " …): rerun strata-setup --model for this model"));
      }
      ok(
          "model",
          model.geometry().architecture()
              + ", "
              + found.size()
              + " shard(s), "
              + model.geometry().qsaLayerCount()
              + " QSA layers, "
              + model.geometry().kvHeads()
              + " KV heads × "
              + model.geometry().headDim());
    }

    private void checkHost() {
      if (backend == Backend.METAL && !here.isMac()) {
        throw refuse(
            "host",
            new PreflightRefused(
                "the config targets the metal backend but this machine is "
                    + here.os()
                    + " ("
                    + here.chip()
                    + "): use a cpu-reference config here (strata-setup --engine-lib with strata-ref)"));
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

    private void checkPlan(boolean refuseWhenShort) {
      try {
        plan =
            MemoryPlan.compute(
                here,
                model.geometry(),
                engineArgs.ctx(),
                engineArgs.experts(),
                kv,
                backend,
                engineEnv,
                engineArgs.memBudgetMb(),
                engineArgs.spec());
      } catch (IllegalArgumentException e) {
        throw refuse("plan", new PreflightRefused("memory plan: " + e.getMessage(), e));
      }
      if (plan.fits()) {
        ok("plan", "fits this machine");
      } else if (refuseWhenShort) {
        throw refuse(
            "plan",
            new PreflightRefused(plan.refusal() + " (on this machine: " + here.chip() + ")"));
      } else {
        warn("plan", plan.refusal());
      }
    }

    /**
     * The engine's argv: the config's args with the value of every path flag ({@code --model})
     * replaced by the path it names, resolved once against the config's folder.
     */
    private static List<String> withAbsolutePaths(List<String> args, Path model) {
      List<String> out = new ArrayList<>(args);
      for (int i = 0; i + 1 < out.size(); i++) {
        if (out.get(i).equals(EngineFlags.MODEL)) {
          out.set(i + 1, model.toString());
        }
      }
      return List.copyOf(out);
    }

    /**
     * Asks the engine: loads the checked library (the verified open file, as the launch does) and
     * calls {@code strata_engine_check} with the launch's argv and env.
     *
     * @param refuseOnNo whether a non-zero answer refuses (the launch, --dry-run) or is shown
     *     ({@code --plan})
     */
    private void checkEngine(VerifiedLibrary checked, boolean refuseOnNo) {
      NativeEngine lib;
      try {
        lib = checked.load();
      } catch (StrataException e) {
        throw refuse("engine", new PreflightRefused(e.getMessage(), e));
      }
      try (lib) {
        String name = lib.name();
        if (!lib.hasCheck()) {
          engine = new EngineVerdict(name, lib.abiVersion(), false, 0, null, List.of());
          warn(
              "engine",
              name
                  + " is an ABI "
                  + lib.abiVersion()
                  + " engine without strata_engine_check: this verdict comes from the launcher's"
                  + " own rules, not the engine's");
          return;
        }
        List<String> planLines = new ArrayList<>();
        String[] firstError = new String[1];
        LogSink sink =
            (level, line) -> {
              synchronized (planLines) {
                if (level == LogLevel.ERROR && firstError[0] == null) {
                  firstError[0] = line;
                }
                if (PlanItems.name(line) != null) {
                  planLines.add(line);
                }
              }
            };
        int rc = EngineEnv.with(lib, config.env(), () -> lib.check(engineArgv, sink));
        synchronized (planLines) {
          engine = new EngineVerdict(name, lib.abiVersion(), true, rc, firstError[0], planLines);
        }
        if (rc == 0) {
          ok("engine", name + " checked this launch itself: it would start");
          return;
        }
        String why =
            name
                + " refuses this launch (strata_engine_check returned "
                + rc
                + "): "
                + (firstError[0] != null ? firstError[0] : "no error line");
        if (refuseOnNo) {
          throw refuse("engine", new PreflightRefused(why));
        }
        warn("engine", why);
      }
    }

    /** {@code --plan}: the engine's own items when its library passes the trust checks. */
    private void planEngineItems() {
      try (VerifiedLibrary checked =
          LibraryTrust.check(resolve(config.engine().library()), config.engine().sha256(), where)) {
        checkEngine(checked, false);
      } catch (StrataException e) {
        engineNote = "the engine's own items are not shown: " + e.getMessage();
      }
    }

    private Path resolve(String path) {
      Path p = Path.of(path);
      Path base = configPath.toAbsolutePath().getParent();
      return (p.isAbsolute() || base == null ? p : base.resolve(p)).toAbsolutePath().normalize();
    }

    private StrataException configError(String message) {
      return new StrataException(ExitCodes.USAGE, where + ": " + message);
    }
  }

  private static Path real(Path p) {
    try {
      return p.toRealPath();
    } catch (java.io.IOException e) {
      return p.toAbsolutePath().normalize();
    }
  }
}
