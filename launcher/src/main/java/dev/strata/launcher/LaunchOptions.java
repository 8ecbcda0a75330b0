package dev.strata.launcher;

import dev.strata.cli.CliOption;
import dev.strata.cli.CliValues;
import dev.strata.cli.CommandNames;
import dev.strata.cli.HostFileOption;
import dev.strata.cli.JsonOption;
import dev.strata.cli.PathArgs;
import dev.strata.cli.SimpleArgs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code strata-launch}'s options, each declared once: the table ({@link #TABLE}) that both
 * picocli's model ({@link LaunchCli}, through {@code CliSpec}) and the start-up fast path ({@link
 * #simple}) are made from, and the one {@link #request} both parses end in. The fast path reads the
 * scripted {@code strata-launch --dry-run --config FILE} and its kin without picocli: picocli's jar
 * holds Java 5 class files, which the AOT cache cannot hold and the old type-inferring verifier
 * checks one by one, and then it builds its model by reflection (docs/PERFORMANCE.md §2). Anything
 * else (help, version, a subcommand, {@code --name=value}, {@code -cFILE}, an argument file
 * {@code @FILE}, a repeated or unknown option, a value that starts with {@code -}) goes to picocli.
 * The options' combinations (--plan with --dry-run, …) are judged by {@link LaunchFlow#run} for
 * both. {@code LaunchOptionsTest} runs a corpus of argument lists through both parsers and checks
 * they agree; {@code LaunchFastPathE2eTest} runs whole launches both ways.
 */
final class LaunchOptions {
  private LaunchOptions() {}

  static final CliOption<Path> CONFIG =
      CliOption.path(
              "--config",
              "FILE",
              "The engine config (default: see below; STRATA_CONFIG overrides the default).",
              "FILE (an engine config, engine.yaml)")
          .alias("-c");

  static final CliOption<Boolean> DRY_RUN =
      CliOption.flag(
          "--dry-run",
          "Run every preflight check, the engine's own check among them when the config pins"
              + " the library's sha256 (an unpinned library is not loaded: loading runs its code),"
              + " and print the engine's arguments, environment, the checks and the plan; start"
              + " nothing. Exits 0 when the launch would start, 3 when refused.");

  static final CliOption<Boolean> PLAN =
      CliOption.flag(
          "--plan",
          "Print the memory plan only (for this machine, or for --host-file), whether or not it"
              + " fits: exit 0. Exit 3 when the config cannot be planned here at all (a missing"
              + " model, a refused KV choice, a metal config off the Mac: add --host-file with a"
              + " Mac's profile).");

  static final CliOption<Boolean> EXPLAIN =
      CliOption.flag(
          "--explain", "With --plan: after the plan, what each of its rows means (a glossary).");

  static final CliOption<Boolean> ISOLATE =
      CliOption.flag(
          "--isolate",
          "Run the engine in a child process: a native crash is reported as one line (exit 70)"
              + " instead of a JVM crash report.");

  static final CliOption<String> PROMPT =
      CliOption.text(
          "--prompt",
          "TEXT",
          "Generate text from TEXT (ABI 3 engines: a session): the text goes to standard output"
              + " as it is made, everything else to standard error. Stops at the model's end of"
              + " generation, after --n-predict tokens, or at the context's end.");

  static final CliOption<String> PROMPT_FILE =
      CliOption.text(
          "--prompt-file",
          "FILE",
          "As --prompt, the prompt read from FILE (UTF-8; - is standard input).");

  static final CliOption<String> N_PREDICT =
      CliOption.text(
          "--n-predict", "N", "With --prompt: the most tokens to generate (default: 128).");

  static final CliOption<String> TEMP =
      CliOption.text(
          "--temp", "T", "With --prompt: the sampling temperature; 0 is greedy (default: 0.8).");

  static final CliOption<String> TOP_K =
      CliOption.text(
          "--top-k",
          "K",
          "With --prompt: sample among the K likeliest tokens; 0 = all (default: 40).");

  static final CliOption<String> TOP_P =
      CliOption.text(
          "--top-p",
          "P",
          "With --prompt: then among the likeliest tokens whose probability reaches P; 1 = all"
              + " (default: 0.95).");

  static final CliOption<String> SEED =
      CliOption.text(
          "--seed",
          "N",
          "With --prompt: the sampler's seed, 0..2^64-1 (default: random; --json and the"
              + " summary line show it).");

  static final CliOption<String> SAVE_SESSION =
      CliOption.text(
          "--save-session",
          "FILE",
          "With --prompt: after generating, save the conversation (its tokens and KV cells) to"
              + " FILE, atomically; --load-session FILE continues it later.");

  static final CliOption<String> LOAD_SESSION =
      CliOption.text(
          "--load-session",
          "FILE",
          "With --prompt: first load the conversation saved in FILE (same model, same KV format,"
              + " a context that holds it); the prompt is appended to it.");

  static final CliOption<Boolean> SERVE =
      CliOption.flag(
          "--serve",
          "Serve the config's model over HTTP with the OpenAI API (/v1/models, /v1/completions,"
              + " /v1/chat/completions with stream, /health) until Ctrl-C; loopback only unless"
              + " --api-key is set.");

  static final CliOption<Boolean> CHAT =
      CliOption.flag(
          "--chat",
          "Chat with the config's model in this terminal: the reply streamed, tokens/s after it,"
              + " Ctrl-C stops the reply, /save FILE, /load FILE, /exit.");

  static final CliOption<String> HOST =
      CliOption.text(
          "--host", "HOST", "With --serve: the address to listen on (default: 127.0.0.1).");

  static final CliOption<String> PORT =
      CliOption.text(
          "--port", "N", "With --serve: the port, 0..65535; 0 = any free one (default: 8080).");

  static final CliOption<String> API_KEY =
      CliOption.text(
          "--api-key",
          "KEY",
          "With --serve: every request must send Authorization: Bearer KEY (default:"
              + " $STRATA_API_KEY); required to listen on an address other than loopback.");

  static final CliOption<String> PARALLEL =
      CliOption.text(
          "--parallel",
          "N",
          "With --serve: sequences generating at once; only 1 today (strata-ref's sessions have"
              + " one sequence).");

  static final CliOption<String> QUEUE =
      CliOption.text(
          "--queue",
          "N",
          "With --serve: the most requests waiting for the engine, 1..1024; more are answered 503"
              + " with Retry-After (default: 16).");

  /** Every option of {@code strata-launch}, in the order help lists them. */
  static final List<CliOption<?>> TABLE =
      List.of(
          CONFIG,
          DRY_RUN,
          PLAN,
          EXPLAIN,
          JsonOption.OPTION,
          ISOLATE,
          HostFileOption.OPTION,
          PROMPT,
          PROMPT_FILE,
          N_PREDICT,
          TEMP,
          TOP_K,
          TOP_P,
          SEED,
          SAVE_SESSION,
          LOAD_SESSION,
          SERVE,
          CHAT,
          HOST,
          PORT,
          API_KEY,
          PARALLEL,
          QUEUE);

  /**
   * Every path option of strata-launch and its subcommands, and what it takes ({@link PathArgs}:
   * {@code ~/} expanded, an empty path refused).
   */
  static final Map<String, String> PATHS = PathArgs.paths(withDemo());

  private static List<CliOption<?>> withDemo() {
    List<CliOption<?>> all = new ArrayList<>(TABLE);
    all.addAll(DemoCommand.OPTIONS);
    return all;
  }

  /**
   * The subcommands' names ({@code help} is picocli's {@code HelpCommand}): picocli takes none of
   * them for an option's value ("Expected parameter for option '--config' but found 'demo'").
   */
  static final Set<String> SUBCOMMANDS =
      Set.of(CommandNames.DEMO, CommandNames.COMPLETION, CommandNames.HELP);

  /**
   * The request {@code args} make when they are simple ({@link SimpleArgs#scan}), else null:
   * picocli then parses them and says what is wrong.
   *
   * @param args the command line, no program name
   */
  static LaunchFlow.Request simple(String[] args) {
    CliValues v = SimpleArgs.scan(args, TABLE, SUBCOMMANDS);
    return v == null ? null : request(v);
  }

  /** What the options say, for {@link LaunchFlow}: the one request of both parsers. */
  static LaunchFlow.Request request(CliValues v) {
    return new LaunchFlow.Request(
        v.get(CONFIG),
        v.on(DRY_RUN),
        v.on(PLAN),
        v.on(EXPLAIN),
        v.on(JsonOption.OPTION),
        v.on(ISOLATE),
        v.get(HostFileOption.OPTION),
        new LaunchFlow.Generate(
            v.get(PROMPT),
            v.get(PROMPT_FILE),
            v.get(N_PREDICT),
            v.get(TEMP),
            v.get(TOP_K),
            v.get(TOP_P),
            v.get(SEED),
            v.get(SAVE_SESSION),
            v.get(LOAD_SESSION)),
        new LaunchFlow.Serve(
            v.on(SERVE),
            v.on(CHAT),
            v.get(HOST),
            v.get(PORT),
            v.get(API_KEY),
            v.get(PARALLEL),
            v.get(QUEUE)));
  }

  /**
   * The name of the first of {@code options} whose value in {@code values} (the same order) was
   * given, or null: "{@code --seed} goes with {@code --prompt}".
   */
  static String firstGiven(Object[] values, CliOption<?>... options) {
    for (int i = 0; i < options.length; i++) {
      if (values[i] != null) {
        return options[i].name();
      }
    }
    return null;
  }
}
