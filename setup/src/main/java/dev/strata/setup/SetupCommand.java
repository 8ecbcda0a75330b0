package dev.strata.setup;

import dev.strata.engine.Backend;
import dev.strata.engine.cli.CommandNames;
import dev.strata.engine.cli.CompletionCommand;
import dev.strata.engine.cli.HostFileOption;
import dev.strata.engine.cli.Io;
import dev.strata.engine.cli.KvOption;
import dev.strata.engine.cli.Machine;
import dev.strata.engine.cli.TableValues;
import dev.strata.engine.cli.VersionProvider;
import dev.strata.engine.host.GpuFamily;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.setup.gen.Given;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code strata-setup}: generate an engine config (the wizard asks what the flags do not say). */
@Command(
    name = CommandNames.SETUP,
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
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
      "  # measure its KV trade-off on this machine first (the config is the same)",
      "  strata-setup --model M --measure-kv",
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
          + " host or answers file, a KV format the backend refuses for this model, a"
          + " hand-edited config kept without --force; --measure-kv: an unreadable model, no engine"
          + " library to measure with",
      "3:the memory plan does not fit this host (the message says by how much and what to do);"
          + " an engine library a launch would not load; a library or folder that fails a"
          + " launch's ownership rule; --measure-kv: the engine refused to measure the model",
      "130:cancelled (Ctrl-C, Ctrl-D or no at the confirmation; Ctrl-C while --measure-kv"
          + " measures without a terminal): nothing written"
    })
public final class SetupCommand implements Callable<Integer> {

  private final Io io;
  private final Machine machine;
  private final SetupCli.PrompterFactory prompter;

  @Option(
      names = SetupArgs.MODEL,
      paramLabel = "PATH",
      description = "The model: its first shard, or the folder holding its shards.")
  Path model;

  @Option(
      names = SetupArgs.CTX,
      paramLabel = "N",
      converter = dev.strata.engine.cli.ContextSize.Converter.class,
      description =
          "Context in tokens (1..${bundle:strata.ctx.max}; 32k = 32768). Default: the largest"
              + " standard size that fits.")
  Long ctx;

  @Option(
      names = SetupArgs.EXPERTS,
      paramLabel = "MODE",
      converter = TableValues.Experts.class,
      completionCandidates = TableValues.ExpertsNames.class,
      description =
          "stream (experts on the SSD, an arena keeps the hot ones) or resident (all in memory)."
              + " Default: resident when it fits with margin.")
  ExpertsMode experts;

  @Mixin KvOption kv;

  @Option(
      names = SetupArgs.ENGINE_LIB,
      paramLabel = "PATH",
      description = "The engine library; its sha256 is pinned in the config when it exists.")
  Path engineLib;

  @Option(
      names = SetupArgs.BACKEND,
      paramLabel = "NAME",
      converter = BackendConverter.class,
      completionCandidates = BackendNames.class,
      description =
          "metal, cpu-reference or pc. Default: metal on a Mac, cpu-reference elsewhere or for"
              + " strata-ref.")
  Backend backend;

  @Mixin HostFileOption hostFile;

  @Option(
      names = SetupArgs.GPU_FAMILY,
      paramLabel = "FAMILY",
      converter = GpuFamilyConverter.class,
      completionCandidates = GpuFamilyCandidates.class,
      description =
          "This Mac's GPU family instead of asking Metal (the GPU probe is skipped): apple7 (M1),"
              + " apple8 (M2), apple9 (M3, M4), apple10 (M5) or none. For a Mac where the GPU"
              + " probe crashed or hung.")
  Integer gpuFamily;

  static final class Target {
    @Option(names = SetupArgs.OUT, paramLabel = "FILE", description = "Write the config here.")
    Path out;

    @Option(names = SetupArgs.PRINT, description = "Print the config to stdout; write nothing.")
    boolean print;
  }

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Target target;

  @Option(names = SetupArgs.YES, description = "Ask nothing: take the planned defaults and write.")
  boolean yes;

  @Option(names = SetupArgs.FORCE, description = "Replace a config that was edited by hand.")
  boolean force;

  @Option(
      names = SetupArgs.MEASURE_KV,
      description =
          "Measure this model's KV trade-off on this machine first (int8 and q4_0 against fp16"
              + " KV on a bundled text, a bounded run whose expected time is said first); the KV"
              + " question then quotes it, and the result is cached. The config is the same.")
  boolean measureKv;

  @Option(
      names = SetupArgs.ANSWERS,
      paramLabel = "FILE",
      description =
          "YAML answers (model, ctx, experts, kv, engine-lib, backend, host-file); flags win.")
  Path answers;

  public SetupCommand(Io io, Machine machine, SetupCli.PrompterFactory prompter) {
    this.io = io;
    this.machine = machine;
    this.prompter = prompter;
  }

  public Io io() {
    return io;
  }

  public Machine machine() {
    return machine;
  }

  /** What the flags say, for {@link SetupFlow}. */
  SetupFlow.Request request() {
    return new SetupFlow.Request(
        new Given(model, ctx, experts, kv.format(), engineLib, backend, hostFile.value()),
        answers,
        target != null && target.out != null ? target.out : null,
        target != null && target.print,
        yes,
        force,
        gpuFamily,
        measureKv);
  }

  @Override
  public Integer call() {
    return new SetupFlow(io, machine, prompter).run(request());
  }

  /** {@code --backend NAME}: a {@link Backend} id. */
  static final class BackendConverter implements ITypeConverter<Backend> {
    @Override
    public Backend convert(String value) {
      Backend b = Backend.fromId(value);
      if (b == null) {
        throw new CommandLine.TypeConversionException(
            "'"
                + value
                + "' is not a backend: use "
                + String.join(", ", BackendNames.IDS.subList(0, BackendNames.IDS.size() - 1))
                + " or "
                + BackendNames.IDS.getLast());
      }
      return b;
    }
  }

  /**
   * {@code --gpu-family FAMILY}: a {@link GpuFamily} keyword, number or Apple number, or none (0).
   */
  static final class GpuFamilyConverter implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      String v = value.strip().toLowerCase(java.util.Locale.ROOT);
      if (v.equals("none") || v.equals("0")) {
        return 0;
      }
      for (GpuFamily f : GpuFamily.values()) {
        String n = f.keyword().substring("apple".length());
        String id = Integer.toString(f.id);
        if (v.equals(f.keyword()) || v.equals(n) || v.equals(id) || v.equals("apple" + id)) {
          return f.id;
        }
      }
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a GPU family: use " + GpuFamily.listed() + " or none");
    }
  }

  /** The GPU families, for shell completion. */
  static final class GpuFamilyCandidates extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    GpuFamilyCandidates() {
      super(GpuFamily.keywords());
      add("none");
    }
  }

  /** The backends' ids, for shell completion. */
  static final class BackendNames extends ArrayList<String> {
    private static final long serialVersionUID = 1L;
    static final List<String> IDS = Arrays.stream(Backend.values()).map(Backend::id).toList();

    BackendNames() {
      super(IDS);
    }
  }
}
