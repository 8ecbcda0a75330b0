package dev.strata.launcher;

import dev.strata.cli.CliOption;
import dev.strata.cli.CliSpec;
import dev.strata.cli.CliValues;
import dev.strata.cli.CommandNames;
import dev.strata.cli.EngineOptions;
import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.cli.VersionProvider;
import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.gen.Answers;
import dev.strata.engine.gen.Generator;
import dev.strata.engine.gen.Template;
import dev.strata.engine.gen.Templates;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanItems;
import dev.strata.engine.write.ConfigWriter;
import dev.strata.launcher.preflight.LibraryTrust;
import dev.strata.launcher.run.Generation;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code ./strata demo}: the whole flow in one command from a fresh clone — the demo model (a real
 * model the repository carries, {@code templates/demo-model/tiny-qwen3-q4_k_m.gguf}, read in
 * place), a config for this machine and strata-ref from strata-setup's generator, then a launch in
 * this process that generates text from a fixed prompt, greedily, exactly as {@code strata-launch
 * --config C --prompt P --temp 0} would; then tokens/s and the plan beside the peak memory.
 */
@Command(
    name = CommandNames.DEMO,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    description = {
      "Write a config for this machine and strata-ref with the demo model (tiny-qwen3 Q4_K_M,"
          + " 27.8M parameters, trained for this project), show the plan, then generate text"
          + " from a fixed prompt (greedy, "
          + DemoCommand.DEMO_TOKENS
          + " tokens) and say how fast it went and how much memory it took.",
      "",
      "The model, read in place, and its provenance: templates/demo-model/ of the checkout or"
          + " the distribution.",
      "",
      "The config goes to ~/.cache/strata/demo ($XDG_CACHE_HOME/strata/demo;"
          + " ~/Library/Caches/Strata/demo on macOS) unless --dir says otherwise. Your own config"
          + " is never touched.",
      ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the demo ran",
      "2:usage error, or the demo's files could not be written",
      "3:strata-ref or the demo model is missing (run ./strata build), the folder is writable by"
          + " another user, or preflight refused",
      "130:interrupted (Ctrl-C)",
      "*:the engine's own exit code"
    })
public final class DemoCommand implements Callable<Integer> {

  /** The demo's context: the demo model's trained context. */
  public static final long DEMO_CONTEXT = 1_024;

  /** The tokens the demo generates. */
  public static final int DEMO_TOKENS = 48;

  /** The demo's prompt: the start of a sentence in the style of the model's training text. */
  public static final String DEMO_PROMPT = "The Linux kernel";

  @ParentCommand LaunchCommand parent;

  static final CliOption<Path> DIR =
      CliOption.path(
          "--dir",
          "DIR",
          "Where to write the demo's config (default: the cache folder above).",
          "DIR (where the demo writes its model and config)");

  static final CliOption<Long> CTX =
      EngineOptions.context(
              "Context in tokens (default: ${DEFAULT-VALUE}, the demo model's trained context).")
          .defaultsTo(Long.toString(DEMO_CONTEXT));

  /** The options of {@code demo}, in the order help lists them. */
  static final List<CliOption<?>> OPTIONS = List.of(DIR, EngineOptions.KV, CTX);

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    Io io = parent.io();
    Machine machine = parent.machine();
    CliValues given = CliSpec.values(spec, OPTIONS);
    Path dir = given.get(DIR);
    long ctx = given.get(CTX);
    // Refused before anything is written or replaced: a context the engine's pool rule refuses
    // (the one the launch would apply to the config written).
    Template template = demoTemplate();
    String poolProblem = Generator.contextProblem(template, ctx);
    if (poolProblem != null) {
      throw new StrataException(ExitCodes.USAGE, poolProblem);
    }
    String os = machine.osName();
    // --dir is not normalize()d: its folders are checked as the kernel resolves them (link/..)
    Path folder =
        dir != null
            ? machine.workingDir().resolve(dir).toAbsolutePath()
            : DemoPaths.cacheDir(io.env(), os).toAbsolutePath().normalize();
    String context =
        dir != null ? "--dir " + dir : "the demo's default folder; --dir DIR picks another";
    Answers answers = EngineOptions.answers(given); // --ctx and --kv (no --experts: the plan's)
    KvFormat format = answers.kv();
    Path library = DemoPaths.findRefLibrary(machine.strataRoot(), machine.strataHome(), os);
    Path modelPath = DemoPaths.findDemoModel(machine.strataRoot(), machine.strataHome());
    Path configPath = folder.resolve("engine.yaml");
    // 0. Before anything is written: the folder passes launch's rule (docs/RELIABILITY.md, "Where
    // files are written"), and so does a config already there — launched below, so judged as
    // launch would judge it, not taken for "yours" because its bytes differ.
    ConfigWriter.check(configPath, context);
    GgufModel model = GgufReader.readModel(modelPath);

    // 1. The config, from strata-setup's generator: this machine, strata-ref, its sha256 pinned.
    HostFacts host = machine.probeAndSay(io, "strata-launch", io.env(), note -> true).facts();
    EngineConfig config =
        Generator.plan(
                host,
                model.geometry(),
                List.of(modelPath.toString()),
                answers,
                new Generator.Library(library.toString(), LibraryTrust.sha256Of(library)),
                template)
            .requireFits()
            .config();
    // A demo config the user edited is theirs: launched as it is, never replaced (nor silently
    // moved to .bak); a fresh one needs the file deleted. Otherwise it is (re)generated.
    boolean edited = !ConfigWriter.inspect(configPath).owned();
    String configNote;
    if (edited) {
      configNote =
          "yours: edited by hand, so kept and launched as it is"
              + (format != null || ctx != DEMO_CONTEXT ? " (--ctx/--kv apply to a fresh one)" : "")
              + "; delete it for a fresh one";
    } else {
      ConfigWriter.Result r =
          ConfigWriter.write(
              configPath,
              ConfigCodec.write(config).getBytes(StandardCharsets.UTF_8),
              false,
              context);
      configNote =
          (r.outcome() == ConfigWriter.Outcome.REPLACED
                  ? "rewritten, the previous one kept as " + r.backup().getFileName() + "; "
                  : "")
              + "for this machine: "
              + host.chip()
              + "; context "
              + ctx
              + (format != null ? ", --kv " + format.flagName() : "");
    }

    String launchCommand = launchCommand(machine);
    String again =
        launchCommand
            + " --config "
            + Reports.quote(configPath.toString())
            + " --prompt "
            + Reports.quote(DEMO_PROMPT)
            + " --temp 0 --n-predict "
            + DEMO_TOKENS;
    PrintWriter out = io.out();
    out.println("strata demo:");
    out.println(
        "  model   "
            + modelPath
            + " (tiny-qwen3 Q4_K_M, 27.8M parameters, trained for this project; see the README"
            + " beside it)");
    out.println("  engine  " + library + " (strata-ref, the reference CPU engine)");
    out.println("  config  " + configPath + " (" + configNote + ")");
    out.println("  launch  " + again);
    out.println("  (the plan and the engine's lines on standard error; the text below)");
    out.println();
    out.flush();

    LaunchFlow flow = new LaunchFlow(io, machine);
    // the prompt goes out with the first text, after the plan and the engine's lines (standard
    // error): on a terminal it then reads whole with its continuation
    flow.textPrefix(DEMO_PROMPT);
    int code;
    try {
      code =
          flow.run(
              new LaunchFlow.Request(
                  configPath,
                  false,
                  false,
                  false,
                  false,
                  false,
                  null,
                  new LaunchFlow.Generate(
                      DEMO_PROMPT,
                      null,
                      Integer.toString(DEMO_TOKENS),
                      "0",
                      null,
                      null,
                      null,
                      null,
                      null),
                  null));
    } catch (StrataException e) {
      out.println();
      out.flush();
      return io.report(CommandNames.LAUNCH, e);
    }
    out.println();
    out.println();
    Generation.Result result = flow.lastGeneration();
    if (result != null) {
      out.println(
          String.format(
              Locale.ROOT,
              "strata demo: %d tokens at %.1f tok/s (the prompt's %d at %.1f tok/s); stopped: %s",
              result.generatedTokens(),
              result.decodeTokS(),
              result.promptTokens(),
              result.prefillTokS(),
              result.stop().word()));
      out.println("  memory  " + memoryLine(flow.lastPlan(), result));
    }
    out.println(
        "strata demo: "
            + (code == 0 ? "done" : "the launch ended with exit code " + code)
            + ". Run it again with: "
            + again);
    out.flush();
    return code;
  }

  /**
   * The plan's items (what the engine allocates and maps) beside the process's peak resident set:
   * "plan 33.3 MB (weights 29.6, kv 2.4, scratch 1.3); peak RSS 122.8 MB (this process: the JVM and
   * the engine in it)".
   */
  static String memoryLine(MemoryPlan plan, Generation.Result result) {
    StringBuilder items = new StringBuilder();
    long total = 0;
    if (plan != null) {
      for (String line : PlanItems.lines(plan)) {
        long b = PlanItems.bytes(line);
        total += b;
        items.append(items.isEmpty() ? "" : ", ").append(PlanItems.name(line)).append(' ');
        items.append(mb(b));
      }
    }
    String rss = result.stats().get("peak_rss_bytes");
    return (plan != null ? "plan " + mb(total) + " MB (" + items + ")" : "no plan")
        + "; peak RSS "
        + (rss != null && rss.matches("\\d{1,18}") ? mb(Long.parseLong(rss)) + " MB" : "unknown")
        + " (this process: the JVM and the engine in it)";
  }

  private static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f", bytes / 1e6);
  }

  /**
   * How the user runs strata-launch from where they are: {@code ./strata launch} in a checkout
   * (from its root; the script's absolute path elsewhere), the distribution's {@code
   * bin/strata-launch} otherwise. A checkout has no strata-launch on the PATH.
   */
  static String launchCommand(Machine machine) {
    return dev.strata.cli.LaunchHint.command(
        machine.strataRoot(), machine.strataHome(), machine.workingDir());
  }

  /**
   * strata-ref's template as the demo runs it: {@code --spec 0}, because the demo model has no MTP
   * block and the template's {@code --spec 2} would warn about it (twice: preflight and the engine)
   * — the demo must not warn about its own model. The templates and their goldens stay.
   */
  static Template demoTemplate() {
    Template t = Templates.load(Backend.CPU_REFERENCE);
    List<String> args = new ArrayList<>(t.args());
    set(args, EngineFlags.SPEC, "0");
    return new Template(t.name(), t.backend(), args, t.env());
  }

  private static void set(List<String> args, String flag, String value) {
    int i = args.indexOf(flag);
    if (i < 0) {
      args.add(flag);
      args.add(value);
    } else {
      args.set(i + 1, value);
    }
  }
}
