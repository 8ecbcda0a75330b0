package dev.strata.launcher;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.cli.CommandNames;
import dev.strata.engine.cli.ContextSize;
import dev.strata.engine.cli.Io;
import dev.strata.engine.cli.KvOption;
import dev.strata.engine.cli.Machine;
import dev.strata.engine.cli.VersionProvider;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.gen.Answers;
import dev.strata.engine.gen.Generator;
import dev.strata.engine.gen.Template;
import dev.strata.engine.gen.Templates;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.DemoModel;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanRequest;
import dev.strata.engine.plan.UsableMemory;
import dev.strata.engine.write.ConfigWriter;
import dev.strata.launcher.preflight.LibraryTrust;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code ./strata demo}: the whole flow in one command from a fresh clone — writes the demo model
 * (4 GGUF shards with the seed's geometry, sparse zero data), generates a config for this machine
 * and strata-ref with strata-setup's generator, then launches it in this process through FFM,
 * exactly as {@code strata-launch --config} would.
 */
@Command(
    name = CommandNames.DEMO,
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    description = {
      "Write the demo model and a config for this machine and strata-ref, then launch the engine"
          + " on it with a short synthetic workload (a 512-token prompt, 8 decode steps whose"
          + " experts stream through an arena of 4 tokens' experts).",
      "",
      "Files go to ~/.cache/strata/demo ($XDG_CACHE_HOME/strata/demo; ~/Library/Caches/Strata/demo"
          + " on macOS) unless --dir says otherwise. Your own config is never touched.",
      ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the demo ran",
      "2:usage error, or the demo's files could not be written",
      "3:strata-ref is missing (run ./strata build), the folder is writable by another user,"
          + " or preflight refused",
      "130:interrupted (Ctrl-C)",
      "*:the engine's own exit code"
    })
public final class DemoCommand implements Callable<Integer> {

  /** The demo's context: the 32K of the seed's pinned figures. */
  public static final long DEMO_CONTEXT = 32_768;

  /** Shards of the demo model. */
  public static final int DEMO_SHARDS = 4;

  /**
   * Decode steps of the demo. Each streams one token's experts: 480 reads of 811,008 B when cold,
   * so a few steps show the arena at work without reading gigabytes.
   */
  public static final int DEMO_DECODE_STEPS = 8;

  /**
   * The demo's stream arena holds this many tokens' experts (the default-context rule's "4 tokens'
   * experts", docs/PLAN.md): small enough that the run evicts, whatever the machine.
   */
  public static final int DEMO_ARENA_TOKENS = 4;

  @ParentCommand LaunchCommand parent;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "Where to write the demo model and config (default: the cache folder above).")
  Path dir;

  @Mixin KvOption kv;

  @Option(
      names = "--ctx",
      paramLabel = "N",
      converter = ContextSize.Converter.class,
      description = "Context in tokens (default: ${DEFAULT-VALUE}; 32k = 32768).",
      defaultValue = "32768")
  long ctx;

  @Option(
      names = "--isolate",
      description = "Run the engine in a child process (see strata-launch --help).")
  boolean isolate;

  @Override
  public Integer call() throws IOException {
    Io io = parent.io();
    Machine machine = parent.machine();
    // Refused before anything is written or replaced: a context the demo's workload cannot run
    // in (strata-ref's pool rule, the one the launch would apply to the config written).
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
    KvFormat format = kv.format();
    Path library = DemoPaths.findRefLibrary(machine.strataRoot(), machine.strataHome(), os);
    Path configPath = folder.resolve("engine.yaml");
    // 0. Before anything is written: the folder passes launch's rule (docs/RELIABILITY.md, "Where
    // files are written"), and so does a config already there — launched below, so judged as
    // launch would judge it, not taken for "yours" because its bytes differ.
    ConfigWriter.check(configPath, context);

    // 1. The model: reused when a complete demo set is already there.
    Path modelDir = folder.resolve("model");
    List<Path> shards = existingDemoModel(modelDir);
    boolean wrote = shards == null;
    if (wrote) {
      shards = DemoModel.write(modelDir, DEMO_SHARDS, false, context);
    }
    GgufModel model = GgufReader.readModel(shards.getFirst());

    // 2. The config, from strata-setup's generator: this machine, strata-ref, its sha256 pinned.
    HostFacts host = machine.probeAndSay(io, "strata-launch", io.env(), note -> true).facts();
    List<String> shardPaths = new ArrayList<>();
    shards.forEach(p -> shardPaths.add(p.toString()));
    EngineConfig config =
        Generator.plan(
                host,
                model.geometry(),
                shardPaths,
                new Answers(ctx, null, format),
                new Generator.Library(library.toString(), LibraryTrust.sha256Of(library)),
                template)
            .requireFits()
            .config();
    config = demoWorkload(config, host, model.geometry(), format);
    // A demo config the user edited is theirs: launched as it is, never replaced (nor silently
    // moved to .bak); a fresh one needs the file deleted. Otherwise it is (re)generated.
    boolean edited = !ConfigWriter.inspect(configPath).owned();
    String configNote;
    if (edited) {
      configNote =
          "yours: edited by hand, so kept and launched as it is"
              + (kv != null || ctx != DEMO_CONTEXT ? " (--ctx/--kv apply to a fresh one)" : "")
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

    io.out().println("strata demo:");
    io.out()
        .println(
            "  model   "
                + modelDir
                + (wrote ? " (written: " : " (reused: ")
                + shards.size()
                + " GGUF shards with the seed's geometry, sparse zero data)");
    io.out().println("  engine  " + library + " (strata-ref, the reference CPU engine)");
    io.out().println("  config  " + configPath + " (" + configNote + ")");
    String launchCommand = launchCommand(machine);
    io.out()
        .println(
            "  experts stream, --mem-budget-mb "
                + config.engineArgs().memBudgetMb()
                + " (an arena of "
                + DEMO_ARENA_TOKENS
                + " tokens' experts), "
                + DEMO_DECODE_STEPS
                + " decode steps; the engine's arena: line counts hits, misses and bytes read");
    io.out()
        .println(
            "  launch  "
                + launchCommand
                + " --config "
                + Reports.quote(configPath.toString())
                + (isolate ? " --isolate" : ""));
    io.out().println();
    io.out().flush();

    List<String> launchArgs = new ArrayList<>(List.of("--config", configPath.toString()));
    if (isolate) {
      launchArgs.add("--isolate");
    }
    int code = LaunchMain.run(io, machine, launchArgs.toArray(String[]::new));
    io.out().println();
    io.out()
        .println(
            "strata demo: "
                + (code == 0 ? "done" : "the launch ended with exit code " + code)
                + ". Run it again with: "
                + launchCommand
                + " --config "
                + Reports.quote(configPath.toString()));
    io.out().flush();
    return code;
  }

  /**
   * How the user runs strata-launch from where they are: {@code ./strata launch} in a checkout
   * (from its root; the script's absolute path elsewhere), the distribution's {@code
   * bin/strata-launch} otherwise. A checkout has no strata-launch on the PATH.
   */
  static String launchCommand(Machine machine) {
    return dev.strata.engine.cli.LaunchHint.command(
        machine.strataRoot(), machine.strataHome(), machine.workingDir());
  }

  /**
   * strata-ref's template with the demo's {@link #DEMO_DECODE_STEPS} decode steps: what the
   * generator writes and its pool rule checks.
   */
  static Template demoTemplate() {
    Template t = Templates.load(Backend.CPU_REFERENCE);
    List<String> args = new ArrayList<>(t.args());
    set(args, EngineFlags.N_PREDICT, Integer.toString(DEMO_DECODE_STEPS));
    return new Template(t.name(), t.backend(), args, t.env());
  }

  /**
   * The demo's workload on top of the generated config: experts streamed, a budget whose arena
   * holds {@link #DEMO_ARENA_TOKENS} tokens' experts (never more than the generated budget), and
   * {@link #DEMO_DECODE_STEPS} decode steps. Everything else stays the generator's.
   */
  static EngineConfig demoWorkload(
      EngineConfig config, HostFacts host, ModelGeometry model, KvFormat format) {
    long ctx = config.engineArgs().ctx();
    if (!(KvRules.decide(Backend.CPU_REFERENCE, format, Map.of())
        instanceof KvDecision.Accepted kv)) {
      return config; // refused (k8v4): the launch says so in its own words
    }
    MemoryPlan p =
        MemoryPlan.compute(
            PlanRequest.of(host, model, Backend.CPU_REFERENCE)
                .withContext(ctx)
                .withExperts(ExpertsMode.STREAM)
                .withKv(kv)
                .withEnv(config.env()));
    long fixed = MemoryPlan.streamingFixedBytes(p, model, config.env(), host);
    long want = fixed + DEMO_ARENA_TOKENS * p.arena().tokenSlots() * p.arena().slotBytes();
    long mb = (want + UsableMemory.MIB - 1) / UsableMemory.MIB;
    long generated = config.engineArgs().memBudgetMb();
    List<String> args = new ArrayList<>(config.args());
    set(args, EngineFlags.EXPERTS, ExpertsMode.STREAM.id());
    set(args, EngineFlags.MEM_BUDGET_MB, Long.toString(Math.min(mb, generated)));
    set(args, EngineFlags.N_PREDICT, Integer.toString(DEMO_DECODE_STEPS));
    return new EngineConfig(
        config.schema(), config.engine(), config.model(), config.host(), args, config.env());
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

  private static List<Path> existingDemoModel(Path modelDir) {
    if (!Files.isDirectory(modelDir)) {
      return null;
    }
    try {
      GgufModel m = GgufReader.readModel(modelDir);
      List<Path> paths = new ArrayList<>();
      for (GgufModel.Shard s : m.shards()) {
        if (!DemoModel.isDemoShard(s.path())) {
          return null;
        }
        paths.add(s.path());
      }
      return paths.size() == DEMO_SHARDS ? paths : null;
    } catch (StrataException e) {
      return null; // anything off: write it again
    }
  }
}
