package dev.strata.launcher;

import dev.strata.cli.CommandNames;
import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.host.ProbeResult;
import dev.strata.engine.libc.Posix;
import dev.strata.engine.plan.ExpectedReads;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.text.TerminalText;
import dev.strata.engine.trust.TrustedPath;
import dev.strata.engine.write.ConfigPaths;
import dev.strata.launcher.preflight.Preflight;
import dev.strata.launcher.run.EngineRunner;
import dev.strata.launcher.run.GenerateRunner;
import dev.strata.launcher.run.Generation;
import dev.strata.launcher.run.InProcessRunner;
import dev.strata.launcher.run.IsolatedRunner;
import dev.strata.launcher.run.LogRouter;
import dev.strata.launcher.run.RunSummary;
import dev.strata.launcher.run.Supervisor;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The one flow of {@code strata-launch} (without {@code demo}): the options' rules, the config read
 * through one checked open, the host, preflight, then the plan, the dry run or the launch. Both
 * ways into it end here — picocli's parse ({@link LaunchCommand#call}) and the start-up fast path
 * ({@link LaunchOptions#simple}, from {@link LaunchMain}) — so they run the same code and refuse in
 * the same words; refusals are thrown as {@link StrataException} and reported by the caller with
 * {@link Io#report}.
 */
final class LaunchFlow {

  /**
   * What the command line asks for.
   *
   * @param config {@code --config FILE} as typed (relative to the working folder), or null for the
   *     default path
   * @param dryRun {@code --dry-run}
   * @param plan {@code --plan}
   * @param explain {@code --explain}
   * @param json {@code --json}
   * @param isolate {@code --isolate}
   * @param hostFile {@code --host-file FILE|NAME} as typed, or null
   * @param generate the generation options as typed ({@link Generate#NONE}: a plain launch)
   * @param serve {@code --serve} / {@code --chat} and their options as typed ({@link Serve#NONE})
   */
  record Request(
      Path config,
      boolean dryRun,
      boolean plan,
      boolean explain,
      boolean json,
      boolean isolate,
      String hostFile,
      Generate generate,
      Serve serve) {

    Request {
      generate = generate != null ? generate : Generate.NONE;
      serve = serve != null ? serve : Serve.NONE;
    }
  }

  /**
   * {@code --serve} and {@code --chat} with their options as typed, each null when not given
   * ({@link ServeArgs} judges them for both ways into the flow).
   */
  record Serve(
      boolean serve,
      boolean chat,
      String host,
      String port,
      String apiKey,
      String parallel,
      String queue) {
    static final Serve NONE = new Serve(false, false, null, null, null, null, null);

    @Override
    public String toString() {
      // the key is never printed
      return "Serve[serve="
          + serve
          + ", chat="
          + chat
          + ", host="
          + host
          + ", port="
          + port
          + ", apiKey="
          + (apiKey == null ? "null" : "(set)")
          + ", parallel="
          + parallel
          + ", queue="
          + queue
          + "]";
    }
  }

  /**
   * The generation options as typed, each null when not given ({@link GenerateArgs} parses them for
   * both ways into the flow).
   */
  record Generate(
      String prompt,
      String promptFile,
      String nPredict,
      String temp,
      String topK,
      String topP,
      String seed,
      String saveSession,
      String loadSession) {
    static final Generate NONE = new Generate(null, null, null, null, null, null, null, null, null);

    /** Whether a prompt was given ({@code --prompt} or {@code --prompt-file}). */
    boolean asked() {
      return prompt != null || promptFile != null;
    }
  }

  private final Io io;
  private final Machine machine;
  private Generation.Result lastGeneration;
  private MemoryPlan lastPlan;
  private String textPrefix = "";

  LaunchFlow(Io io, Machine machine) {
    this.io = io;
    this.machine = machine;
  }

  /** Runs the request; returns the exit code (refusals are thrown as {@link StrataException}). */
  int run(Request r) {
    if (r.plan() && r.dryRun()) {
      throw usage("--plan and --dry-run exclude each other: --dry-run already prints the plan");
    }
    if (r.explain() && (!r.plan() || r.json())) {
      throw usage("--explain goes with --plan (and not with --json): it explains the plan's rows");
    }
    if (r.hostFile() != null && !r.plan() && !r.dryRun()) {
      throw usage("--host-file goes with --plan or --dry-run: a launch always checks this machine");
    }
    if (r.isolate() && r.plan()) {
      throw usage("--isolate has no effect with --plan: nothing runs");
    }
    // generation's options are judged (and the prompt read) before anything is loaded
    ServeArgs.Judged serve = ServeArgs.judge(r, io);
    Generation.Options generate = serve != null ? null : GenerateArgs.options(r, io, machine);
    Path config = r.config();
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
                  ? config.toString().matches("[0-9]+[kK]?")
                      // llama.cpp's -c is the context size: -c 4096 here names a config "4096"
                      ? " (-c is --config here, not llama.cpp's --ctx-size: the context is the"
                          + " config's, strata-setup --ctx N)"
                      : ""
                  : io.env().containsKey("STRATA_CONFIG")
                      ? " (from STRATA_CONFIG): write one there (strata-setup --out "
                          + configPath
                          + "), point STRATA_CONFIG at a config, or pass --config FILE"
                      : " (the default path): run strata-setup to write one, or pass --config"
                          + " FILE"));
    }
    EngineConfig cfg =
        readTrusted(
            configPath,
            config != null
                ? "--config"
                : io.env().containsKey("STRATA_CONFIG")
                    ? "STRATA_CONFIG"
                    : "the default config path");
    cfg = serve != null ? ServeArgs.withParallel(serve, cfg) : cfg;
    // --host-file: the one path rule (HostProfiles.open), as strata-setup's
    // the memory available now is this machine's: a host file's machine has none to check
    ProbeResult probed =
        r.hostFile() != null
            ? null
            : machine.probeAndSay(io, CommandNames.LAUNCH, io.env(), note -> true);
    Preflight.Here here =
        probed == null
            ? new Preflight.Here(
                HostProfiles.open(r.hostFile(), machine.workingDir()).facts(), null)
            : new Preflight.Here(probed.facts(), probed.available());

    if (r.plan()) {
      Preflight.Report report = Preflight.forPlan(cfg, configPath, here, io.env());
      Reports.printPlan(report, r.json(), io.width(), io.out(), io.err());
      if (r.explain()) {
        io.out().println();
        io.out().print(dev.strata.engine.plan.PlanText.glossaryText(io.width()));
        io.out().flush();
      }
      return ExitCodes.OK;
    }
    try (Preflight.Report report =
        r.dryRun()
            ? Preflight.forDryRun(cfg, configPath, here, io.env())
            : Preflight.full(cfg, configPath, here, io.env())) {
      if (r.dryRun()) {
        Reports.printDryRun(report, r.isolate(), r.json(), io.width(), io.out(), io.err());
        return report.refused() ? report.refusal().exitCode() : ExitCodes.OK;
      }
      if (report.refused()) {
        Reports.printWarnings(report, io.err());
        throw report.refusal();
      }
      Reports.printWarnings(report, io.err());
      if (serve != null) {
        return ServeArgs.run(serve, report, io, cfg);
      }
      if (generate != null) {
        return generate(r, report, generate);
      }
      // with --json, stdout is the one JSON document: everything else goes to standard error
      PrintWriter out = r.json() ? io.err() : io.out();
      Reports.printStart(report, r.isolate(), io.width(), out);
      // kept with or without --json: the reads line after the run compares its arena: figures
      RunSummary summary = new RunSummary();
      // a person on a terminal reads sizes and an updating progress line; a pipe gets raw lines
      LogRouter log = new LogRouter(out, io.err(), summary, io.interactive());
      // the library preflight checked, held open: loaded (or handed to the child) as it was checked
      EngineRunner runner =
          r.isolate()
              ? new IsolatedRunner(report.verified(), log::raw)
              : InProcessRunner.load(report.verified(), out);
      int code = new Supervisor(runner, log, io.err(), io.halt()).run(report.args(), report.env());
      printReads(out, report, summary);
      if (r.json()) {
        io.out().println(Reports.runJson(report, r.isolate(), code, summary));
        io.out().flush();
      }
      return code;
    }
  }

  /** The decode's reads beside the plan's expectation, when both have a figure (ReadsReport). */
  private static void printReads(PrintWriter out, Preflight.Report report, RunSummary summary) {
    ReadsReport reads = ReadsReport.of(report.plan(), summary);
    // an arena that holds every expert reads nothing after the first use: no line to compare
    if (reads != null && reads.expected().basis() != ExpectedReads.Basis.EVERY_EXPERT) {
      out.println(reads.line());
      out.flush();
    }
  }

  /**
   * Text printed on standard output just before the generated text, once the engine's lines and the
   * plan (standard error) are out: the demo's prompt, so that on a terminal it reads whole with its
   * continuation instead of being cut from it by the plan.
   */
  void textPrefix(String prefix) {
    textPrefix = prefix;
  }

  /** What the last {@code --prompt} run of this flow made; null before one ended (the demo). */
  Generation.Result lastGeneration() {
    return lastGeneration;
  }

  /** The plan of the last launch with {@code --prompt}, or null (the demo shows it beside RSS). */
  MemoryPlan lastPlan() {
    return lastPlan;
  }

  /**
   * {@code --prompt}: the launch, but the engine runs a session and generates. Standard output
   * holds only the text (or, with --json, only the JSON document); the engine's lines, the start
   * line and the summary go to standard error.
   */
  private int generate(Request r, Preflight.Report report, Generation.Options options) {
    lastPlan = report.plan();
    PrintWriter out = io.err();
    Reports.printStart(report, false, io.width(), out);
    RunSummary summary = new RunSummary();
    LogRouter log = new LogRouter(out, io.err(), summary, io.interactive());
    boolean[] endsInNewline = {true};
    String[] prefix = {r.json() ? "" : textPrefix};
    Consumer<String> print =
        text -> {
          // on a terminal the model's control characters are made visible (not its line
          // breaks); piped, the text is as made
          String shown = prefix[0] + text;
          prefix[0] = "";
          io.out().print(io.interactive() ? TerminalText.escapeLines(shown) : shown);
          io.out().flush();
          endsInNewline[0] = shown.endsWith("\n");
        };
    GenerateRunner runner =
        GenerateRunner.load(report.verified(), out, options, r.json() ? text -> {} : print);
    int code = new Supervisor(runner, log, io.err(), io.halt()).run(report.args(), report.env());
    Generation.Result result = runner.result();
    lastGeneration = result;
    if (result != null && !prefix[0].isEmpty()) {
      print.accept(""); // nothing generated (an end of text at once): the prefix still shows
    }
    if (result != null) {
      // the text ends where the model stopped: the summary starts on a line of its own
      io.err().println((endsInNewline[0] ? "" : "\n") + result.summaryLine(options));
      io.err().flush();
    }
    printReads(io.err(), report, summary);
    if (r.json()) {
      io.out()
          .println(
              Reports.runJson(
                  report,
                  false,
                  code,
                  summary,
                  result == null ? null : g -> RunSummary.writeGeneration(g, result, options)));
      io.out().flush();
    }
    return code;
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
            configPath, TrustedPath.Subject.readWhole("config", "from " + how), TrustedPath.me())) {
      byte[] bytes =
          Posix.readAll(f.fd(), Math.min(f.stat().size(), (long) ConfigCodec.MAX_BYTES + 1));
      return ConfigCodec.read(bytes, configPath.toString());
    } catch (java.nio.file.NoSuchFileException e) {
      return ConfigCodec.read(configPath);
    } catch (java.io.IOException e) {
      throw new StrataException(
          ExitCodes.USAGE, configPath + ": cannot read: " + dev.strata.engine.IoReason.of(e), e);
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
