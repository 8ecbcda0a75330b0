package dev.strata.launcher;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.cli.CompletionCommand;
import dev.strata.engine.cli.HostFileOption;
import dev.strata.engine.cli.Io;
import dev.strata.engine.cli.JsonOption;
import dev.strata.engine.cli.Machine;
import dev.strata.engine.cli.VersionProvider;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.ffm.Posix;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.trust.TrustedPath;
import dev.strata.engine.write.ConfigPaths;
import dev.strata.launcher.preflight.Preflight;
import dev.strata.launcher.run.EngineRunner;
import dev.strata.launcher.run.InProcessRunner;
import dev.strata.launcher.run.IsolatedRunner;
import dev.strata.launcher.run.LogRouter;
import dev.strata.launcher.run.RunSummary;
import dev.strata.launcher.run.Supervisor;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code strata-launch}: check a config against this machine, then start the engine on it. */
@Command(
    name = "strata-launch",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    subcommands = {DemoCommand.class, CompletionCommand.class, CommandLine.HelpCommand.class},
    description = {
      "Check an engine config against this machine, then load the engine library into this"
          + " process (Java FFM) and run it with the config's arguments and environment. The"
          + " engine's lines pass through as they come: information on standard output, warnings"
          + " and errors on standard error (prefixed warn: / error:).",
      "",
      "Before anything is loaded, preflight checks (and refuses with one line):",
      "  config   owned by root or you, not writable by group or others, nor its",
      "           folders (exit 3); the YAML is valid; args and env fit the config's",
      "           backend (exit 2)",
      "  kv       the KV format runs on this backend: --kv k8v4, and STRATA_KV_ROT=1",
      "           with --kv int8, are refused on Metal and strata-ref (exit 3)",
      "  library  engine.library, its folders and links are owned by root or you and",
      "           not writable by group or others; it is a whole library and matches",
      "           engine.sha256 when pinned; checked on the one open file, which is",
      "           what gets loaded (exit 3)",
      "  model    every shard of model.shards is there and the split set is complete",
      "           (exit 3); --model is the first shard (exit 2)",
      "  host     this machine can run the backend; a config made for another",
      "           machine is a warning, and the plan is for this one",
      "  plan     the memory plan fits this machine (exit 3)",
      "  engine   the library loads (missing, not a library, another ABI: exit 3)",
      "           and the engine's own check (strata_engine_check, ABI 2) accepts",
      "           the exact argv and env of the launch (exit 3); an ABI 1 engine",
      "           has no check: the launcher's rules decide, and --dry-run says so",
      "",
      "--json: with --plan the plan, with --dry-run the checks and the plan, with a",
      "launch the run's allocations, arena counters, peak memory and speed (the",
      "engine's lines then go to standard error).",
      "",
      "Ctrl-C (SIGINT) stops the engine and exits 130; a second Ctrl-C exits at once.",
      "SIGTERM stops it and exits 143; SIGHUP (the terminal went away) exits 129.",
      ""
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  strata-launch                          the config at the default path",
      "  strata-launch -c engine.yaml --dry-run what would run; nothing run",
      "  strata-launch --plan --json            the memory plan as JSON",
      "  strata-launch --plan --explain         the plan, then what each row means",
      "  strata-launch --plan --host-file m4-24   the plan on another Mac",
      "  strata-launch --isolate                a native crash: one line, exit 70",
      "  strata-launch demo                     the demo model, a config, a launch",
      "  source <(strata-launch completion bash)",
      "",
      "Default config: $STRATA_CONFIG if set; else",
      "  macOS: ~/Library/Application Support/Strata/engine.yaml",
      "  elsewhere: $XDG_CONFIG_HOME/strata/engine.yaml",
      "             or ~/.config/strata/engine.yaml",
      "(where strata-setup writes it). See docs/LAUNCH.md."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success (the engine returned 0)",
      "2:usage or config error (bad flag, bad YAML, bad args/env in the config)",
      "3:preflight refused (library, model, KV format, memory), or the library could not be"
          + " loaded (missing, not a library, ABI mismatch)",
      "70:the engine crashed (--isolate)",
      "129:hung up (SIGHUP)",
      "130:interrupted (SIGINT / Ctrl-C)",
      "143:terminated (SIGTERM)",
      "*:otherwise the engine's own exit code"
    })
public final class LaunchCommand implements Callable<Integer> {
  private final Io io;
  private final Machine machine;

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      description = "The engine config (default: see below; STRATA_CONFIG overrides the default).")
  Path config;

  @Option(
      names = "--dry-run",
      description =
          "Run every preflight check, the engine's own check among them, and print the engine's"
              + " arguments, environment, the checks and the plan; run nothing. Exits 0 when the"
              + " launch would start, 3 when refused.")
  boolean dryRun;

  @Option(
      names = "--plan",
      description =
          "Print the memory plan only (for this machine, or for --host-file), whether or not it"
              + " fits: exit 0. Exit 3 when the config cannot be planned here at all (a missing"
              + " model, a refused KV choice, a metal config off the Mac: add --host-file with a"
              + " Mac's profile).")
  boolean plan;

  @Option(
      names = "--explain",
      description = "With --plan: after the plan, what each of its rows means (a glossary).")
  boolean explain;

  @Mixin JsonOption json;

  @Option(
      names = "--isolate",
      description =
          "Run the engine in a child process: a native crash is reported as one line (exit 70)"
              + " instead of a JVM crash report.")
  boolean isolate;

  @Mixin HostFileOption hostFile;

  public LaunchCommand(Io io, Machine machine) {
    this.io = io;
    this.machine = machine;
  }

  /** The command's streams (for {@code demo}). */
  Io io() {
    return io;
  }

  /** The machine the command runs on (for {@code demo}). */
  Machine machine() {
    return machine;
  }

  @Override
  public Integer call() {
    if (plan && dryRun) {
      throw usage("--plan and --dry-run exclude each other: --dry-run already prints the plan");
    }
    if (explain && (!plan || json.json())) {
      throw usage("--explain goes with --plan (and not with --json): it explains the plan's rows");
    }
    if (hostFile.given() && !plan && !dryRun) {
      throw usage("--host-file goes with --plan or --dry-run: a launch always checks this machine");
    }
    if (isolate && plan) {
      throw usage("--isolate has no effect with --plan: nothing runs");
    }
    if (config != null && config.toString().isBlank()) {
      // an empty --config resolves to the working folder: name the argument, not the folder
      throw usage(
          "--config: the path is empty: pass --config FILE (an engine config, engine.yaml)");
    }
    Path configPath = config != null ? machine.resolve(config) : defaultConfig();
    if (!Files.exists(configPath)) {
      throw usage(
          "no config at "
              + configPath
              + (config != null
                  ? ""
                  : " (the default path): run strata-setup to write one, or pass --config FILE"));
    }
    EngineConfig cfg =
        readTrusted(
            configPath,
            config != null
                ? "--config"
                : io.env().containsKey("STRATA_CONFIG")
                    ? "STRATA_CONFIG"
                    : "the default config path");
    HostFacts here =
        hostFile.given()
            ? hostFile.open(machine).facts()
            : machine.probeAndSay(io, "strata-launch", io.env(), note -> true).facts();

    if (plan) {
      Preflight.Report report = Preflight.forPlan(cfg, configPath, here, io.env());
      Reports.printPlan(report, json.json(), io.width(), io.out(), io.err());
      if (explain) {
        io.out().println();
        io.out().print(dev.strata.engine.plan.PlanText.glossaryText(io.width()));
        io.out().flush();
      }
      return ExitCodes.OK;
    }
    try (Preflight.Report report = Preflight.full(cfg, configPath, here, io.env())) {
      if (dryRun) {
        Reports.printDryRun(report, isolate, json.json(), io.width(), io.out(), io.err());
        return report.refused() ? report.refusal().exitCode() : ExitCodes.OK;
      }
      if (report.refused()) {
        Reports.printWarnings(report, io.err());
        throw report.refusal();
      }
      Reports.printWarnings(report, io.err());
      // with --json, stdout is the one JSON document: everything else goes to standard error
      PrintWriter out = json.json() ? io.err() : io.out();
      Reports.printStart(report, isolate, io.width(), out);
      RunSummary summary = json.json() ? new RunSummary() : null;
      LogRouter log = new LogRouter(out, io.err(), summary);
      // the library preflight checked, held open: loaded (or handed to the child) as it was checked
      EngineRunner runner =
          isolate
              ? new IsolatedRunner(report.verified(), log::raw)
              : InProcessRunner.load(report.verified(), out);
      int code = new Supervisor(runner, log, io.err(), io.halt()).run(report.args(), report.env());
      if (summary != null) {
        io.out().println(Reports.runJson(report, isolate, code, summary));
        io.out().flush();
      }
      return code;
    }
  }

  /**
   * Reads the config through one checked open: it decides what runs (the library and its pin), so
   * it, its folder and every folder above it must pass the ownership rule the library passes
   * ({@link TrustedPath}, exit 3), and the bytes parsed are the ones read from that open file.
   */
  static EngineConfig readTrusted(Path configPath, String how) {
    if (!Files.isRegularFile(configPath)) {
      return ConfigCodec.read(configPath); // its own exit-2 words for a folder, a missing file
    }
    try (TrustedPath.OpenFile f =
        TrustedPath.open(
            configPath, new TrustedPath.Subject("config", "from " + how), TrustedPath.me())) {
      byte[] bytes =
          Posix.readAll(f.fd(), Math.min(f.stat().size(), (long) ConfigCodec.MAX_BYTES + 1));
      return ConfigCodec.read(bytes, configPath.toString());
    } catch (java.nio.file.NoSuchFileException e) {
      return ConfigCodec.read(configPath);
    } catch (java.io.IOException e) {
      throw new StrataException(
          ExitCodes.USAGE, configPath + ": cannot read: " + e.getMessage(), e);
    }
  }

  /** strata-setup's default path: the launcher reads where the wizard writes. */
  private Path defaultConfig() {
    try {
      return ConfigPaths.defaultConfig(io.env(), machine.osName());
    } catch (StrataException e) {
      throw usage("no --config given and HOME is not set: pass --config FILE or set STRATA_CONFIG");
    }
  }

  private static StrataException usage(String message) {
    return new StrataException(ExitCodes.USAGE, message);
  }
}
