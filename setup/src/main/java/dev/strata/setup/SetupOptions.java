package dev.strata.setup;

import dev.strata.cli.CliOption;
import dev.strata.cli.CliValues;
import dev.strata.cli.CommandNames;
import dev.strata.cli.EngineOptions;
import dev.strata.cli.HostFileOption;
import dev.strata.cli.PathArgs;
import dev.strata.cli.SimpleArgs;
import dev.strata.engine.Backend;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.gen.Answers;
import dev.strata.engine.host.GpuFamily;
import dev.strata.setup.gen.Given;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code strata-setup}'s options, each declared once: the table ({@link #TABLE}) that both
 * picocli's model ({@link SetupCli}, through {@code CliSpec}: {@code --help}, the man page,
 * completion, every usage error) and the start-up fast path ({@link #simple}: the scripted {@code
 * strata-setup … --print} read without picocli, docs/PERFORMANCE.md §2) are made from, and the one
 * {@link #request} both parses end in. {@code SetupOptionsTest} runs a corpus of argument lists
 * through both parsers and checks they agree.
 */
final class SetupOptions {
  private SetupOptions() {}

  static final CliOption<Path> MODEL =
      CliOption.path(
          EngineFlags.MODEL,
          "PATH",
          "The model: its first shard, or the folder holding its shards.",
          "PATH (the model's first shard, or its folder)");

  static final CliOption<Long> CTX =
      EngineOptions.context(
          "Context in tokens (1..${bundle:strata.ctx.max}; 32k = 32768). Default: the largest"
              + " standard size that fits.");

  static final CliOption<Path> ENGINE_LIB =
      CliOption.path(
          "--engine-lib",
          "PATH",
          "The engine library; its sha256 is pinned in the config when it exists.",
          "PATH (the engine library)");

  /** The backends' ids, in the enum's order. */
  static final List<String> BACKENDS = Arrays.stream(Backend.values()).map(Backend::id).toList();

  static final CliOption<Backend> BACKEND =
      CliOption.of(
              "--backend",
              "NAME",
              "metal, cpu-reference or pc. Default: metal on a Mac, cpu-reference elsewhere or"
                  + " for strata-ref.",
              SetupOptions::backend)
          .completes(BACKENDS);

  static final CliOption<Integer> GPU_FAMILY =
      CliOption.of(
              "--gpu-family",
              "FAMILY",
              "This Mac's GPU family instead of asking Metal (the GPU probe is skipped): apple7"
                  + " (M1), apple8 (M2), apple9 (M3, M4), apple10 (M5) or none. For a Mac where the"
                  + " GPU probe crashed or hung.",
              SetupOptions::gpuFamily)
          .completes(gpuFamilies())
          .picocliOnly(); // rare, interactive-minded: left to picocli

  static final CliOption<Path> OUT =
      CliOption.path(
              "--out",
              "FILE",
              "Write the config here.",
              "with a path (the config to write; a folder for demo-model)")
          .inGroup("target");

  static final CliOption<Boolean> PRINT =
      CliOption.flag("--print", "Print the config to stdout; write nothing.").inGroup("target");

  static final CliOption<Boolean> YES =
      CliOption.flag("--yes", "Ask nothing: take the planned defaults and write.");

  static final CliOption<Boolean> FORCE =
      CliOption.flag("--force", "Replace a config that was edited by hand.");

  static final CliOption<Boolean> MEASURE_KV =
      CliOption.flag(
          "--measure-kv",
          "Measure this model's KV trade-off on this machine first (int8 and q4_0 against fp16"
              + " KV on a bundled text, a bounded run whose expected time is said first); the KV"
              + " question then quotes it, and the result is cached. The config is the same.");

  static final CliOption<Path> ANSWERS =
      CliOption.path(
          "--answers",
          "FILE",
          "YAML answers (model, ctx, experts, kv, engine-lib, backend, host-file); flags win.",
          "FILE (the answers as YAML)");

  /** Every option of {@code strata-setup}, in the order help lists them. */
  static final List<CliOption<?>> TABLE =
      List.of(
          MODEL,
          CTX,
          EngineOptions.EXPERTS,
          EngineOptions.KV,
          ENGINE_LIB,
          BACKEND,
          HostFileOption.OPTION,
          GPU_FAMILY,
          OUT,
          PRINT,
          YES,
          FORCE,
          MEASURE_KV,
          ANSWERS);

  /**
   * Every path option of strata-setup and its subcommands ({@code demo-model --out}, {@code probe
   * --host-file}), and what it takes ({@link PathArgs}: {@code ~/} expanded, an empty path
   * refused).
   */
  static final Map<String, String> PATHS = PathArgs.paths(TABLE);

  /**
   * The subcommands' names ({@code help} is picocli's {@code HelpCommand}): picocli takes none of
   * them for an option's value ("Expected parameter for option '--out' but found 'probe'").
   */
  static final Set<String> SUBCOMMANDS =
      Set.of(
          CommandNames.PROBE, CommandNames.DEMO_MODEL, CommandNames.COMPLETION, CommandNames.HELP);

  /**
   * The request {@code args} make when they are simple ({@link SimpleArgs#scan}), else null:
   * picocli then parses them and says what is wrong.
   *
   * @param args the command line, no program name
   */
  static SetupFlow.Request simple(String[] args) {
    CliValues v = args.length == 0 ? null : SimpleArgs.scan(args, TABLE, SUBCOMMANDS);
    return v == null ? null : request(v);
  }

  /** What the options say, for {@link SetupFlow}: the one request of both parsers. */
  static SetupFlow.Request request(CliValues v) {
    Answers engine = EngineOptions.answers(v);
    return new SetupFlow.Request(
        new Given(
            v.get(MODEL),
            engine.context(),
            engine.experts(),
            engine.kv(),
            v.get(ENGINE_LIB),
            v.get(BACKEND),
            v.get(HostFileOption.OPTION)),
        v.get(ANSWERS),
        v.get(OUT),
        v.on(PRINT),
        v.on(YES),
        v.on(FORCE),
        v.get(GPU_FAMILY),
        v.on(MEASURE_KV));
  }

  /** {@code --backend NAME}: a {@link Backend} id. */
  private static Backend backend(String value) throws CliOption.Refused {
    Backend b = Backend.fromId(value);
    if (b == null) {
      throw new CliOption.Refused(
          "'"
              + value
              + "' is not a backend: use "
              + String.join(", ", BACKENDS.subList(0, BACKENDS.size() - 1))
              + " or "
              + BACKENDS.getLast(),
          false);
    }
    return b;
  }

  /** {@code --gpu-family FAMILY}: a {@link GpuFamily} keyword, number or Apple number, or none. */
  private static Integer gpuFamily(String value) throws CliOption.Refused {
    String v = value.strip().toLowerCase(Locale.ROOT);
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
    throw new CliOption.Refused(
        "'" + value + "' is not a GPU family: use " + GpuFamily.listed() + " or none", false);
  }

  /** The GPU families and none, for shell completion. */
  private static List<String> gpuFamilies() {
    List<String> words = new ArrayList<>(GpuFamily.keywords());
    words.add("none");
    return words;
  }
}
