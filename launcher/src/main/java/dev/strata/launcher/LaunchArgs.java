package dev.strata.launcher;

import dev.strata.engine.cli.CommandNames;
import dev.strata.engine.cli.HostFileOption;
import dev.strata.engine.cli.JsonOption;
import dev.strata.engine.cli.SimpleArgs;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The names of {@code strata-launch}'s options (the picocli annotations of {@link LaunchCommand}
 * use these constants) and its start-up fast path: {@link #simple} reads an argument list made only
 * of these options, each once, in their plain {@code --name value} form — the whole of a scripted
 * {@code strata-launch --dry-run --config FILE} and its kin — into the request picocli would build,
 * without building picocli's command model. picocli's jar holds Java 5 class files, which the AOT
 * cache cannot hold and the old type-inferring verifier checks one by one, and then it builds its
 * model by reflection: about a quarter of a {@code --dry-run}'s wall time (docs/PERFORMANCE.md
 * §2c). Anything else (help, version, a subcommand, {@code --name=value}, {@code -cFILE}, an
 * argument file {@code @FILE}, a repeated or unknown option, a value that starts with {@code -}) is
 * not simple: picocli parses it and reports what is wrong, so every usage message still comes from
 * one place. Both paths then run the same {@link LaunchFlow}. {@code LaunchArgsTest} runs a corpus
 * of argument lists through both and checks they agree; {@code LaunchFastPathE2eTest} runs whole
 * launches both ways.
 */
final class LaunchArgs {
  private LaunchArgs() {}

  static final String CONFIG = "--config";
  static final String CONFIG_SHORT = "-c";
  static final String DRY_RUN = "--dry-run";
  static final String PLAN = "--plan";
  static final String EXPLAIN = "--explain";
  static final String JSON = JsonOption.NAME;
  static final String ISOLATE = "--isolate";
  static final String HOST_FILE = HostFileOption.NAME;
  static final String PROMPT = "--prompt";
  static final String PROMPT_FILE = "--prompt-file";
  static final String N_PREDICT = "--n-predict";
  static final String TEMP = "--temp";
  static final String TOP_K = "--top-k";
  static final String TOP_P = "--top-p";
  static final String SEED = "--seed";
  static final String SAVE_SESSION = "--save-session";
  static final String LOAD_SESSION = "--load-session";

  /**
   * The options that take a value (by every name), and the switches: every option of the command.
   */
  static final Set<String> VALUED =
      Set.of(
          CONFIG,
          CONFIG_SHORT,
          HOST_FILE,
          PROMPT,
          PROMPT_FILE,
          N_PREDICT,
          TEMP,
          TOP_K,
          TOP_P,
          SEED,
          SAVE_SESSION,
          LOAD_SESSION);

  /**
   * Every path option of strata-launch and its subcommands, and what it takes ({@link
   * dev.strata.engine.cli.PathArgs}: {@code ~/} expanded, an empty path refused).
   */
  static final Map<String, String> PATHS =
      Map.of(
          CONFIG,
          "FILE (an engine config, engine.yaml)",
          CONFIG_SHORT,
          "FILE (an engine config, engine.yaml)",
          HOST_FILE,
          "FILE (a host JSON, or a profile: strata-setup probe --list-hosts)",
          "--dir",
          "DIR (where the demo writes its model and config)");

  static final Set<String> SWITCHES = Set.of(DRY_RUN, PLAN, EXPLAIN, JSON, ISOLATE);

  /**
   * The subcommands' names ({@code help} is picocli's {@code HelpCommand}): picocli takes none of
   * them for an option's value ("Expected parameter for option '--config' but found 'demo'").
   */
  static final Set<String> SUBCOMMANDS =
      Set.of(CommandNames.DEMO, CommandNames.COMPLETION, CommandNames.HELP);

  /**
   * The request {@code args} make when they are simple (see the class comment), else null. The
   * options' combinations (--plan with --dry-run, …) are not judged here: {@link LaunchFlow#run}
   * judges them for both paths.
   *
   * @param args the command line, no program name
   */
  static LaunchFlow.Request simple(String[] args) {
    Path config = null;
    String hostFile = null;
    boolean dryRun = false;
    boolean plan = false;
    boolean explain = false;
    boolean json = false;
    boolean isolate = false;
    // generation: the values as typed (the flow parses them, for both paths alike)
    Map<String, String> generate = new java.util.HashMap<>();
    // -c and --config are one option: either twice is a repeat
    List<SimpleArgs.Option> options =
        SimpleArgs.options(args, VALUED, SWITCHES, SUBCOMMANDS, Map.of(CONFIG_SHORT, CONFIG));
    if (options == null) {
      return null;
    }
    for (SimpleArgs.Option option : options) {
      switch (option.name()) {
        case DRY_RUN -> dryRun = true;
        case PLAN -> plan = true;
        case EXPLAIN -> explain = true;
        case JSON -> json = true;
        case ISOLATE -> isolate = true;
        case HOST_FILE -> hostFile = option.value();
        case PROMPT, PROMPT_FILE, N_PREDICT, TEMP, TOP_K, TOP_P, SEED, SAVE_SESSION, LOAD_SESSION ->
            generate.put(option.name(), option.value());
        default -> {
          try {
            config = Path.of(option.value()); // picocli's Path converter: Paths.get
          } catch (InvalidPathException e) {
            return null; // picocli names the option and the value
          }
        }
      }
    }
    return new LaunchFlow.Request(
        config,
        dryRun,
        plan,
        explain,
        json,
        isolate,
        hostFile,
        new LaunchFlow.Generate(
            generate.get(PROMPT),
            generate.get(PROMPT_FILE),
            generate.get(N_PREDICT),
            generate.get(TEMP),
            generate.get(TOP_K),
            generate.get(TOP_P),
            generate.get(SEED),
            generate.get(SAVE_SESSION),
            generate.get(LOAD_SESSION)));
  }
}
