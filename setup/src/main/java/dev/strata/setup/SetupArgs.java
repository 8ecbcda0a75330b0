package dev.strata.setup;

import dev.strata.engine.Backend;
import dev.strata.engine.cli.CommandNames;
import dev.strata.engine.cli.HostFileOption;
import dev.strata.engine.cli.SimpleArgs;
import dev.strata.engine.cli.TableValues;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.setup.gen.Given;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The names of {@code strata-setup}'s options (the picocli annotations of {@link SetupCommand} use
 * these constants) and its start-up fast path: {@link #simple} reads an argument list made only of
 * these options, each once, in their plain {@code --name value} form, with values the same checks
 * accept — the whole of a scripted {@code strata-setup … --print} — without building picocli's
 * command model, which is most of a short run's start-up (docs/PERFORMANCE.md). Anything else
 * (help, version, a subcommand, {@code --name=value}, a repeated or unknown option, a bad value, a
 * value that starts with {@code -} or {@code @} or names a subcommand: {@link SimpleArgs}) is not
 * simple: picocli parses it and reports what is wrong, so every message still comes from one place.
 * {@code SetupArgsTest} runs a corpus of argument lists through both and checks they agree.
 */
final class SetupArgs {
  private SetupArgs() {}

  static final String MODEL = EngineFlags.MODEL;
  static final String CTX = EngineFlags.CTX;
  static final String EXPERTS = EngineFlags.EXPERTS;
  static final String KV = EngineFlags.KV;
  static final String ENGINE_LIB = "--engine-lib";
  static final String BACKEND = "--backend";
  static final String HOST_FILE = HostFileOption.NAME;
  static final String OUT = "--out";
  static final String PRINT = "--print";
  static final String YES = "--yes";
  static final String FORCE = "--force";
  static final String ANSWERS = "--answers";
  static final String GPU_FAMILY = "--gpu-family";
  static final String MEASURE_KV = "--measure-kv";

  /** Options the fast path leaves to picocli (rare, interactive-minded): never simple. */
  static final Set<String> DEFERRED = Set.of(GPU_FAMILY);

  /** The options that take a value, and the switches: every option of the command itself. */
  static final Set<String> VALUED =
      Set.of(MODEL, CTX, EXPERTS, KV, ENGINE_LIB, BACKEND, HOST_FILE, OUT, ANSWERS);

  static final Set<String> SWITCHES = Set.of(PRINT, YES, FORCE, MEASURE_KV);

  /**
   * Every path option of strata-setup and its subcommands ({@code demo-model --out}, {@code probe
   * --host-file}), and what it takes ({@link dev.strata.engine.cli.PathArgs}: {@code ~/} expanded,
   * an empty path refused).
   */
  static final Map<String, String> PATHS =
      Map.of(
          MODEL, "PATH (the model's first shard, or its folder)",
          ENGINE_LIB, "PATH (the engine library)",
          HOST_FILE, "FILE (a host JSON, or a profile: strata-setup probe --list-hosts)",
          OUT, "with a path (the config to write; a folder for demo-model)",
          ANSWERS, "FILE (the answers as YAML)");

  /**
   * The subcommands' names ({@code help} is picocli's {@code HelpCommand}): picocli takes none of
   * them for an option's value ("Expected parameter for option '--out' but found 'probe'").
   */
  static final Set<String> SUBCOMMANDS =
      Set.of(
          CommandNames.PROBE, CommandNames.DEMO_MODEL, CommandNames.COMPLETION, CommandNames.HELP);

  /**
   * The request {@code args} make when they are simple (see the class comment), else null.
   *
   * @param args the command line, no program name
   */
  static SetupFlow.Request simple(String[] args) {
    if (args.length == 0) {
      return null;
    }
    Path model = null;
    Long ctx = null;
    ExpertsMode experts = null;
    KvFormat kv = null;
    Path engineLib = null;
    Backend backend = null;
    String hostFile = null;
    Path out = null;
    Path answers = null;
    boolean print = false;
    boolean yes = false;
    boolean force = false;
    boolean measureKv = false;
    List<SimpleArgs.Option> options =
        SimpleArgs.options(args, VALUED, SWITCHES, SUBCOMMANDS, Map.of());
    if (options == null) {
      return null;
    }
    for (SimpleArgs.Option option : options) {
      String name = option.name();
      String v = option.value();
      try {
        switch (name) {
          case PRINT -> print = true;
          case YES -> yes = true;
          case FORCE -> force = true;
          case MEASURE_KV -> measureKv = true;
          case MODEL -> model = Path.of(v);
          case CTX -> {
            // a size in range, by the one rule; anything else is picocli's to refuse
            ctx =
                dev.strata.engine.cli.ContextSize.problem(v) == null
                    ? dev.strata.engine.cli.ContextSize.parse(v)
                    : null;
          }
          case EXPERTS ->
              experts = TableValues.problem(EXPERTS, v) == null ? ExpertsMode.fromId(v) : null;
          case KV -> kv = TableValues.problem(KV, v) == null ? KvFormat.fromName(v) : null;
          case ENGINE_LIB -> engineLib = Path.of(v);
          case BACKEND -> backend = Backend.fromId(v);
          case HOST_FILE -> hostFile = v;
          case OUT -> out = Path.of(v);
          default -> answers = Path.of(v);
        }
      } catch (InvalidPathException e) {
        return null;
      }
      if ((name.equals(CTX) && ctx == null)
          || (name.equals(EXPERTS) && experts == null)
          || (name.equals(KV) && kv == null)
          || (name.equals(BACKEND) && backend == null)) {
        return null; // a bad value: picocli says what is wrong
      }
    }
    if (print && out != null) {
      return null; // exclusive: picocli's message
    }
    return new SetupFlow.Request(
        new Given(model, ctx, experts, kv, engineLib, backend, hostFile),
        answers,
        out,
        print,
        yes,
        force,
        null,
        measureKv);
  }
}
