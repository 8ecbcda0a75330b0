package dev.strata.setup;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.flags.AsciiDigits;
import dev.strata.engine.gen.Answers;
import dev.strata.engine.gen.Generator;
import dev.strata.engine.gen.Template;
import dev.strata.engine.gen.Templates;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.host.ProbeResult;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanText;
import dev.strata.engine.text.TerminalText;
import dev.strata.engine.write.ConfigPaths;
import dev.strata.engine.write.ConfigWriter;
import dev.strata.metal.HostProbe;
import dev.strata.setup.gen.AnswersFile;
import dev.strata.setup.gen.EngineLibraries;
import dev.strata.setup.gen.Given;
import dev.strata.setup.prompt.Prompter;
import dev.strata.setup.prompt.Question;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** {@code strata-setup}: generate an engine config (the wizard asks what the flags do not say). */
@Command(
    name = "strata-setup",
    mixinStandardHelpOptions = true,
    versionProvider = SetupCommand.Version.class,
    showDefaultValues = true,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Probe this Mac, read the model's GGUF shards, ask what the flags do not say, show the"
          + " memory plan and write one engine config.",
      "",
      "On a terminal the missing answers are asked (Enter accepts each default; Ctrl-C or"
          + " Ctrl-D stops and writes nothing). Without a terminal, --model, --ctx and --experts"
          + " are needed, or --yes to take the planned defaults.",
      ""
    },
    subcommands = {
      ProbeCommand.class,
      DemoModelCommand.class,
      CompletionCommand.class,
      CommandLine.HelpCommand.class
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  # the wizard, on a terminal",
      "  strata-setup",
      "  # the planned defaults, no questions",
      "  strata-setup --model ~/models/m-00001-of-00004.gguf --yes",
      "  # print the config, write nothing",
      "  strata-setup --model M --ctx 32768 --experts stream --print",
      "  # the same config with exactly '--kv q4_0' appended",
      "  strata-setup --model M --ctx 32768 --experts stream --kv q4_0 --print",
      "  # a config for another Mac (a host profile), in a file of its own",
      "  strata-setup --host-file m4-pro-48 --model M \\",
      "      --engine-lib /opt/strata/libstrata.dylib --yes --out m4.yaml",
      "",
      "The config goes to $STRATA_CONFIG if set; else",
      "  macOS: ~/Library/Application Support/Strata/engine.yaml",
      "  elsewhere: $${XDG_CONFIG_HOME:-~/.config}/strata/engine.yaml",
      "The previous one is kept as engine.yaml.bak; one edited by hand is kept unless",
      "--force. See docs/SETUP.md (the distribution has it in docs/ too)."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:config written (or printed)",
      "2:usage or input error: a bad flag, a missing answer without a terminal, a bad model,"
          + " host or answers file, a hand-edited config kept without --force",
      "3:the memory plan does not fit this host (the message says by how much and what to do)",
      "130:cancelled (Ctrl-C, Ctrl-D or no at the confirmation): nothing written"
    })
public final class SetupCommand implements Callable<Integer> {
  private final SetupCli.Io io;
  private final SetupCli.Machine machine;

  @Option(
      names = "--model",
      paramLabel = "PATH",
      description = "The model: its first shard, or the folder holding its shards.")
  Path model;

  @Option(
      names = "--ctx",
      paramLabel = "N",
      converter = dev.strata.setup.gen.ContextSize.Converter.class,
      description =
          "Context in tokens (1..1048576; 32k = 32768). Default: the largest standard size that"
              + " fits.")
  Long ctx;

  @Option(
      names = "--experts",
      paramLabel = "MODE",
      converter = ExpertsConverter.class,
      completionCandidates = ExpertsCandidates.class,
      description =
          "stream (experts on the SSD, an arena keeps the hot ones) or resident (all in memory)."
              + " Default: resident when it fits with margin.")
  ExpertsMode experts;

  @Option(
      names = "--kv",
      paramLabel = "FORMAT",
      converter = KvConverter.class,
      completionCandidates = KvCandidates.class,
      description =
          "KV cache format, opt-in: q4_0 stores 576 instead of 1,056 B per cell per layer"
              + " (upstream: +1.7%% perplexity on 1K-token segments, more at longer context)."
              + " Without it no --kv is written: the engine's default path.")
  KvFormat kv;

  @Option(
      names = "--engine-lib",
      paramLabel = "PATH",
      description = "The engine library; its sha256 is pinned in the config when it exists.")
  Path engineLib;

  @Option(
      names = "--backend",
      paramLabel = "NAME",
      converter = BackendConverter.class,
      completionCandidates = BackendCandidates.class,
      description =
          "metal, cpu-reference or pc. Default: metal on a Mac, cpu-reference elsewhere or for"
              + " strata-ref.")
  Backend backend;

  @Option(
      names = "--host-file",
      paramLabel = "FILE",
      description = "A host JSON or a host profile name (e.g. m4-pro-48) instead of probing.")
  String hostFile;

  @Option(
      names = "--gpu-family",
      paramLabel = "FAMILY",
      converter = GpuFamilyConverter.class,
      completionCandidates = GpuFamilyCandidates.class,
      description =
          "This Mac's GPU family instead of asking Metal (the GPU probe is skipped): apple7 (M1),"
              + " apple8 (M2), apple9 (M3, M4), apple10 (M5) or none. For a Mac where the GPU"
              + " probe crashed or hung.")
  Integer gpuFamily;

  static final class Target {
    @Option(names = "--out", paramLabel = "FILE", description = "Write the config here.")
    Path out;

    @Option(names = "--print", description = "Print the config to stdout; write nothing.")
    boolean print;
  }

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Target target;

  @Option(names = "--yes", description = "Ask nothing: take the planned defaults and write.")
  boolean yes;

  @Option(names = "--force", description = "Replace a config that was edited by hand.")
  boolean force;

  @Option(
      names = "--answers",
      paramLabel = "FILE",
      description =
          "YAML answers (model, ctx, experts, kv, engine-lib, backend, host-file); flags win.")
  Path answers;

  public SetupCommand(SetupCli.Io io) {
    this(io, SetupCli.Machine.system());
  }

  public SetupCommand(SetupCli.Io io, SetupCli.Machine machine) {
    this.io = io;
    this.machine = machine;
  }

  public SetupCli.Io io() {
    return io;
  }

  public SetupCli.Machine machine() {
    return machine;
  }

  @Override
  public Integer call() {
    Given flags = new Given(model, ctx, experts, kv, engineLib, backend, hostFile);
    Given given = answers == null ? flags : flags.over(AnswersFile.read(answers, homeOf()));
    if (given.model() != null) {
      given =
          new Given(
              machine.workingDir().resolve(given.model()).normalize(),
              given.context(),
              given.experts(),
              given.kv(),
              given.engineLib() == null
                  ? null
                  : machine.workingDir().resolve(given.engineLib()).normalize(),
              given.backend(),
              given.hostFile());
    } else if (given.engineLib() != null) {
      given =
          new Given(
              null,
              given.context(),
              given.experts(),
              given.kv(),
              machine.workingDir().resolve(given.engineLib()).normalize(),
              given.backend(),
              given.hostFile());
    }
    if (given.context() != null
        && (given.context() < 1 || given.context() > Generator.MAX_CONTEXT)) {
      throw new StrataException(
          ExitCodes.USAGE,
          "--ctx " + given.context() + " is out of range: between 1 and " + Generator.MAX_CONTEXT);
    }
    boolean print = target != null && target.print;
    Path out =
        target != null && target.out != null ? machine.workingDir().resolve(target.out) : null;

    boolean wizard = io.interactive() && !yes;
    if (!wizard) {
      requireAnswers(given);
    }
    HostProfiles.Loaded host = loadHost(given.hostFile());
    Path dest =
        print ? null : (out != null ? out : ConfigPaths.defaultConfig(io.env(), machine.osName()));

    if (wizard) {
      return runWizard(host, given, print, dest);
    }
    host = gpuFamilyAnswered(host, null);
    GgufModel gguf = GgufReader.readModel(given.model());
    long trained = gguf.geometry().trainedContext();
    if (given.context() != null && trained > 0 && given.context() > trained) {
      io.err()
          .println(
              "strata-setup: warning: --ctx "
                  + given.context()
                  + " is above the model's trained context "
                  + trained
                  + ": past it, quality is not what the model was trained for");
      io.err().flush();
    }
    Path lib = library(host.facts(), given);
    Backend b = EngineLibraries.backend(host.facts(), lib, given.backend());
    Template template = Templates.load(b);
    Answers a = new Answers(given.context(), given.experts(), given.kv());
    Generator.Generated g =
        Generator.plan(
            host.facts(),
            gguf.geometry(),
            Wizard.shardPaths(gguf),
            a,
            EngineLibraries.describe(lib, host.facts()),
            template);
    if (!g.plan().fits()) {
      throw new StrataException(ExitCodes.PREFLIGHT, g.plan().refusal());
    }
    String yaml = ConfigCodec.write(g.config());
    if (print) {
      io.out().print(yaml);
      requirePrinted();
      return ExitCodes.OK;
    }
    return write(dest, yaml, g.plan());
  }

  private int runWizard(HostProfiles.Loaded host, Given given, boolean print, Path dest) {
    Prompter prompter;
    try {
      prompter = machine.prompter().open(io);
    } catch (IOException e) {
      throw new StrataException(
          ExitCodes.USAGE,
          "cannot open the terminal ("
              + e.getMessage()
              + "): pass the answers as flags (--model, --ctx, --experts) or --yes");
    }
    try {
      host = gpuFamilyAnswered(host, prompter);
      Path home = homeOf();
      Wizard w = new Wizard(prompter, machine, home);
      Wizard.Target target;
      Wizard.Previous previous = Wizard.Previous.NONE;
      if (print) {
        target = Wizard.Target.print();
      } else {
        ConfigWriter.Existing existing = ConfigWriter.inspect(dest);
        target =
            new Wizard.Target(dest, existing.text(), existing.exists(), existing.owned(), force);
        if (existing.exists()) {
          previous = previousAnswers(dest);
        }
      }
      Wizard.Result r = w.run(host.facts(), host.source(), given, previous, target);
      String yaml = ConfigCodec.write(r.generated().config());
      prompter.close();
      if (print) {
        io.out().print(yaml);
        requirePrinted();
        return ExitCodes.OK;
      }
      // The user saw the diff and said yes: that is the wizard's --force.
      return write(dest, yaml, r.generated().plan(), true, false);
    } finally {
      prompter.close();
    }
  }

  /**
   * The answers of the config already at {@code dest}, so a second run starts from them; nothing
   * when it is not a config this toolkit reads (the wizard then offers the planned defaults).
   */
  static Wizard.Previous previousAnswers(Path dest) {
    dev.strata.engine.config.EngineConfig c;
    try {
      c = ConfigCodec.read(dest);
    } catch (StrataException e) {
      return Wizard.Previous.NONE;
    }
    List<String> a = c.args();
    Path model = c.model().shards().isEmpty() ? null : Path.of(c.model().shards().getFirst());
    Long ctx = null;
    ExpertsMode experts = null;
    KvFormat kv = null;
    for (int i = 0; i + 1 < a.size(); i++) {
      String v = a.get(i + 1);
      switch (a.get(i)) {
        case "--ctx" -> {
          try {
            ctx = Long.parseLong(v);
          } catch (NumberFormatException e) {
            ctx = null;
          }
        }
        case "--experts" -> experts = ExpertsMode.fromId(v);
        case "--kv" -> kv = KvFormat.fromName(v);
        default -> {}
      }
    }
    Path lib = c.engine().library() == null ? null : Path.of(c.engine().library());
    return new Wizard.Previous(model, ctx, experts, kv, !a.contains("--kv"), lib);
  }

  /**
   * {@code --print}: the config reached standard output whole, or the command fails (a full disk,
   * {@code > /dev/full}, a closed pipe) with one line instead of exiting 0 with nothing written.
   */
  private void requirePrinted() {
    io.out().flush();
    if (io.out().checkError()) {
      throw new StrataException(
          ExitCodes.USAGE,
          "--print: cannot write the config to standard output (disk full, or the reader went"
              + " away?): the config was not printed");
    }
  }

  private int write(Path dest, String yaml, MemoryPlan plan) {
    return write(dest, yaml, plan, force, true);
  }

  private int write(Path dest, String yaml, MemoryPlan plan, boolean force, boolean showPlan) {
    ConfigWriter.Result r;
    try {
      r = ConfigWriter.write(dest, yaml.getBytes(StandardCharsets.UTF_8), force);
    } catch (ConfigWriter.KeptException e) {
      io.err().println("strata-setup: " + TerminalText.escape(e.getMessage()));
      io.err().print(TerminalText.escapeLines(e.diff()));
      io.err().flush();
      return e.exitCode();
    }
    if (showPlan) {
      io.out().print(PlanText.table(plan));
    }
    switch (r.outcome()) {
      case CREATED -> io.out().println("wrote " + TerminalText.escape(r.path().toString()));
      case REPLACED ->
          io.out()
              .println(
                  "wrote "
                      + TerminalText.escape(r.path().toString())
                      + " (the previous config is "
                      + TerminalText.escape(r.backup().toString())
                      + ")");
      case UNCHANGED ->
          io.out()
              .println(
                  TerminalText.escape(r.path().toString())
                      + " already holds this config: unchanged");
    }
    io.out().flush();
    return ExitCodes.OK;
  }

  /** Without a terminal every answer must be given; one message names all that are missing. */
  private void requireAnswers(Given given) {
    List<String> missing = new ArrayList<>();
    if (given.model() == null) {
      missing.add("--model PATH");
    }
    if (!yes) {
      if (given.context() == null) {
        missing.add("--ctx N");
      }
      if (given.experts() == null) {
        missing.add("--experts stream|resident");
      }
    }
    if (!missing.isEmpty()) {
      throw new StrataException(
          ExitCodes.USAGE,
          (io.interactive() ? "" : "no terminal to ask on, and ")
              + "missing: "
              + String.join(", ", missing)
              + (yes
                  ? ""
                  : " (pass them, or --answers FILE, or --yes to take the planned defaults for"
                      + " --ctx and --experts)"));
    }
  }

  private Path library(HostFacts host, Given given) {
    if (given.engineLib() != null) {
      return given.engineLib();
    }
    Backend b = EngineLibraries.backend(host, null, given.backend());
    return EngineLibraries.discover(b, machine.strataHome(), machine.strataRoot(), machine.osName())
        .orElseThrow(
            () ->
                new StrataException(
                    ExitCodes.USAGE,
                    "missing: --engine-lib PATH ("
                        + (b == Backend.CPU_REFERENCE
                            ? "no strata-ref library in "
                                + EngineLibraries.candidates(
                                        b,
                                        machine.strataHome(),
                                        machine.strataRoot(),
                                        machine.osName())
                                    .stream()
                                    .map(p -> p.getParent().toString())
                                    .distinct()
                                    .collect(java.util.stream.Collectors.joining(" or "))
                                + "; build it with ./strata build in the source tree"
                            : "the "
                                + b.id()
                                + " engine library is not part of this toolkit: it comes from the"
                                + " Strata engine's own build (libstrata.dylib); a config for"
                                + " another Mac may name a path that does not exist here, see"
                                + " docs/SETUP.md")
                        + ")"));
  }

  /** Whether the GPU facts of the probed host still need an answer (the GPU probe was skipped). */
  private boolean gpuUnknown;

  private HostProfiles.Loaded loadHost(String hostFileOrName) {
    if (hostFileOrName != null) {
      if (gpuFamily != null) {
        throw new StrataException(
            ExitCodes.USAGE,
            "--gpu-family and --host-file do not go together: the host file gives gpu_family"
                + " (edit it, or drop --host-file to probe this Mac)");
      }
      String arg = hostFileOrName;
      if (arg.contains("/") || arg.endsWith(".json")) {
        arg = machine.workingDir().resolve(arg).toString();
      }
      return HostProfiles.open(arg);
    }
    Map<String, String> env = io.env();
    if (gpuFamily != null) {
      // The user says what Metal would: its query is not run at all.
      env = new HashMap<>(env);
      env.put(HostProbe.PROBE_ENV, HostProbe.SYSCTL_ONLY);
    }
    ProbeResult probed = machine.probe().apply(env);
    HostFacts facts = probed.facts();
    if (gpuFamily != null) {
      if (!facts.isMac()) {
        throw new StrataException(
            ExitCodes.USAGE,
            "--gpu-family is for a Mac: this machine is " + facts.os() + " (drop --gpu-family)");
      }
      facts = HostProbe.withGpuFamily(facts, gpuFamily);
    }
    for (String note : probed.notes()) {
      if (gpuFamily == null || !note.startsWith("Metal: ")) { // --gpu-family answers for Metal
        io.err().println("strata-setup: probe: " + note);
      }
    }
    io.err().flush();
    gpuUnknown = !probed.gpuFromMetal() && gpuFamily == null && facts.isMac();
    return new HostProfiles.Loaded(facts, "probed");
  }

  /**
   * When the GPU probe was skipped and no --gpu-family was given: the wizard asks (default from the
   * chip name, which the probe already took); without a terminal the chip name's family stands, as
   * the probe's note said.
   */
  private HostProfiles.Loaded gpuFamilyAnswered(HostProfiles.Loaded host, Prompter prompter) {
    if (!gpuUnknown || prompter == null) {
      return host;
    }
    HostFacts f = host.facts();
    List<Question.Option<Integer>> options =
        List.of(
            new Question.Option<>("apple7", "M1, M1 Pro, M1 Max, M1 Ultra", 1007),
            new Question.Option<>("apple8", "M2, M2 Pro, M2 Max, M2 Ultra", 1008),
            new Question.Option<>("apple9", "M3 and M4 (all variants)", 1009),
            new Question.Option<>("apple10", "M5 (k4: prompts take the flash chain)", 1010),
            new Question.Option<>("none", "no Apple GPU (an Intel Mac): Metal cannot run", 0));
    int guess = HostProbe.gpuFamilyOfChip(f.chip());
    int def = 4;
    for (int i = 0; i < options.size(); i++) {
      if (options.get(i).value() == guess) {
        def = i;
      }
    }
    int answer =
        prompter.ask(
            new Question.Choice<>(
                "--gpu-family",
                "GPU family",
                List.of(
                    "",
                    "GPU family — Metal was not asked on this run (see the probe line above);"
                        + " the chip is "
                        + f.chip()
                        + "."),
                options,
                def));
    return new HostProfiles.Loaded(HostProbe.withGpuFamily(f, answer), host.source());
  }

  private Path homeOf() {
    String h = io.env().get("HOME");
    return h == null || h.isBlank() ? null : Path.of(h);
  }

  /** {@code --version}: the build's version, filtered into a resource by Maven. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      java.util.Properties p = new java.util.Properties();
      try (java.io.InputStream in = SetupCommand.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          p.load(in);
        }
      }
      return new String[] {"strata-setup " + p.getProperty("version", "(unknown build)")};
    }
  }

  /** A whole number in ASCII digits only (picocli's own Long converter takes any script's). */
  static final class AsciiLongConverter implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      if (value.length() > 18 || !AsciiDigits.all(value)) {
        throw new CommandLine.TypeConversionException(
            "'"
                + value
                + "' is not a whole number"
                + (AsciiDigits.hasForeignDigit(value) ? " (ASCII digits 0-9 only)" : ""));
      }
      return Long.parseLong(value);
    }
  }

  static final class ExpertsConverter implements ITypeConverter<ExpertsMode> {
    @Override
    public ExpertsMode convert(String value) {
      ExpertsMode m = ExpertsMode.fromId(value);
      if (m == null) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not an experts mode: use stream or resident");
      }
      return m;
    }
  }

  static final class ExpertsCandidates extends ArrayList<String> {
    ExpertsCandidates() {
      super(List.of("stream", "resident"));
    }
  }

  static final class GpuFamilyConverter implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      String v = value.strip().toLowerCase(java.util.Locale.ROOT);
      if (v.equals("none") || v.equals("0")) {
        return 0;
      }
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("(?:apple)?(7|8|9|10|100[7-9]|1010)").matcher(v);
      if (m.matches()) {
        int n = Integer.parseInt(m.group(1));
        return n < 1000 ? 1000 + n : n;
      }
      throw new CommandLine.TypeConversionException(
          "'"
              + value
              + "' is not a GPU family: use apple7 (M1), apple8 (M2), apple9 (M3, M4), apple10"
              + " (M5) or none");
    }
  }

  static final class GpuFamilyCandidates extends ArrayList<String> {
    GpuFamilyCandidates() {
      super(List.of("apple7", "apple8", "apple9", "apple10", "none"));
    }
  }

  static final class KvConverter implements ITypeConverter<KvFormat> {
    @Override
    public KvFormat convert(String value) {
      KvFormat f = KvFormat.fromName(value);
      if (f == null) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a KV format: use q4_0 (or fp16, int8)");
      }
      return f;
    }
  }

  static final class KvCandidates extends ArrayList<String> {
    KvCandidates() {
      super(List.of("q4_0", "int8", "fp16"));
    }
  }

  static final class BackendConverter implements ITypeConverter<Backend> {
    @Override
    public Backend convert(String value) {
      Backend b = Backend.fromId(value);
      if (b == null) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a backend: use metal, cpu-reference or pc");
      }
      return b;
    }
  }

  static final class BackendCandidates extends ArrayList<String> {
    BackendCandidates() {
      super(List.of("metal", "cpu-reference", "pc"));
    }
  }
}
