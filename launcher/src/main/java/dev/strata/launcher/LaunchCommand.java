package dev.strata.launcher;

import dev.strata.engine.cli.CommandNames;
import dev.strata.engine.cli.CompletionCommand;
import dev.strata.engine.cli.HostFileOption;
import dev.strata.engine.cli.Io;
import dev.strata.engine.cli.JsonOption;
import dev.strata.engine.cli.Machine;
import dev.strata.engine.cli.VersionProvider;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code strata-launch}: check a config against this machine, then start the engine on it. The
 * options as picocli parses them (help, version, the subcommands, every usage error); what they ask
 * for is a {@link LaunchFlow.Request}, run by the {@link LaunchFlow} the start-up fast path ({@link
 * LaunchArgs}) runs too.
 */
@Command(
    name = CommandNames.LAUNCH,
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
      "           has no check: the launcher's rules decide, and --dry-run says so;",
      "           --dry-run and --plan load only a library engine.sha256 pins",
      "",
      "--json: with --plan the plan, with --dry-run the checks and the plan, with a",
      "launch the run's allocations, arena counters, peak memory and speed (the",
      "engine's lines then go to standard error); with --prompt also the text, the",
      "token counts, the timings, the stop reason and the seed.",
      "",
      "--prompt: generation on the config's model (ABI 3 engines). The text alone",
      "goes to standard output (flushed per token), the engine's lines to standard",
      "error. Sampling as llama.cpp's defaults: --temp 0.8 --top-k 40 --top-p 0.95,",
      "--n-predict 128, a random --seed; --temp 0 is greedy and deterministic.",
      "",
      "--serve: /v1/models, /v1/completions, /v1/chat/completions (stream: true as",
      "server-sent events) and /health on one session, one generation at a time;",
      "loopback unless --api-key (or STRATA_API_KEY) is set, and then every request",
      "needs it. --chat: the reply streams, Ctrl-C stops it, /save FILE, /load FILE,",
      "/exit. Both use the model's tokenizer.chat_template, or a plain fallback.",
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
      "  strata-launch --prompt 'The kernel' --temp 0 --n-predict 48   generate text",
      "  strata-launch --serve --port 8080      an OpenAI-compatible server on loopback",
      "  strata-launch --chat                   a chat in this terminal",
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
      names = {LaunchArgs.CONFIG_SHORT, LaunchArgs.CONFIG},
      paramLabel = "FILE",
      description = "The engine config (default: see below; STRATA_CONFIG overrides the default).")
  Path config;

  @Option(
      names = LaunchArgs.DRY_RUN,
      description =
          "Run every preflight check, the engine's own check among them when the config pins"
              + " the library's sha256 (an unpinned library is not loaded: loading runs its code),"
              + " and print the engine's arguments, environment, the checks and the plan; start"
              + " nothing. Exits 0 when the launch would start, 3 when refused.")
  boolean dryRun;

  @Option(
      names = LaunchArgs.PLAN,
      description =
          "Print the memory plan only (for this machine, or for --host-file), whether or not it"
              + " fits: exit 0. Exit 3 when the config cannot be planned here at all (a missing"
              + " model, a refused KV choice, a metal config off the Mac: add --host-file with a"
              + " Mac's profile).")
  boolean plan;

  @Option(
      names = LaunchArgs.EXPLAIN,
      description = "With --plan: after the plan, what each of its rows means (a glossary).")
  boolean explain;

  @Mixin JsonOption json;

  @Option(
      names = LaunchArgs.ISOLATE,
      description =
          "Run the engine in a child process: a native crash is reported as one line (exit 70)"
              + " instead of a JVM crash report.")
  boolean isolate;

  @Mixin HostFileOption hostFile;

  @Option(
      names = LaunchArgs.PROMPT,
      paramLabel = "TEXT",
      description =
          "Generate text from TEXT (ABI 3 engines: a session): the text goes to standard output"
              + " as it is made, everything else to standard error. Stops at the model's end of"
              + " generation, after --n-predict tokens, or at the context's end.")
  String prompt;

  @Option(
      names = LaunchArgs.PROMPT_FILE,
      paramLabel = "FILE",
      description = "As --prompt, the prompt read from FILE (UTF-8; - is standard input).")
  String promptFile;

  @Option(
      names = LaunchArgs.N_PREDICT,
      paramLabel = "N",
      description = "With --prompt: the most tokens to generate (default: 128).")
  String nPredict;

  @Option(
      names = LaunchArgs.TEMP,
      paramLabel = "T",
      description = "With --prompt: the sampling temperature; 0 is greedy (default: 0.8).")
  String temp;

  @Option(
      names = LaunchArgs.TOP_K,
      paramLabel = "K",
      description = "With --prompt: sample among the K likeliest tokens; 0 = all (default: 40).")
  String topK;

  @Option(
      names = LaunchArgs.TOP_P,
      paramLabel = "P",
      description =
          "With --prompt: then among the likeliest tokens whose probability reaches P; 1 = all"
              + " (default: 0.95).")
  String topP;

  @Option(
      names = LaunchArgs.SEED,
      paramLabel = "N",
      description =
          "With --prompt: the sampler's seed, 0..2^64-1 (default: random; --json and the"
              + " summary line show it).")
  String seed;

  @Option(
      names = LaunchArgs.SAVE_SESSION,
      paramLabel = "FILE",
      description =
          "With --prompt: after generating, save the conversation (its tokens and KV cells) to"
              + " FILE, atomically; --load-session FILE continues it later.")
  String saveSession;

  @Option(
      names = LaunchArgs.LOAD_SESSION,
      paramLabel = "FILE",
      description =
          "With --prompt: first load the conversation saved in FILE (same model, same KV format,"
              + " a context that holds it); the prompt is appended to it.")
  String loadSession;

  @Option(
      names = LaunchArgs.SERVE,
      description =
          "Serve the config's model over HTTP with the OpenAI API (/v1/models, /v1/completions,"
              + " /v1/chat/completions with stream, /health) until Ctrl-C; loopback only unless"
              + " --api-key is set.")
  boolean serve;

  @Option(
      names = LaunchArgs.CHAT,
      description =
          "Chat with the config's model in this terminal: the reply streamed, tokens/s after it,"
              + " Ctrl-C stops the reply, /save FILE, /load FILE, /exit.")
  boolean chat;

  @Option(
      names = LaunchArgs.HOST,
      paramLabel = "HOST",
      description = "With --serve: the address to listen on (default: 127.0.0.1).")
  String host;

  @Option(
      names = LaunchArgs.PORT,
      paramLabel = "N",
      description = "With --serve: the port, 0..65535; 0 = any free one (default: 8080).")
  String port;

  @Option(
      names = LaunchArgs.API_KEY,
      paramLabel = "KEY",
      description =
          "With --serve: every request must send Authorization: Bearer KEY (default:"
              + " $STRATA_API_KEY); required to listen on an address other than loopback.")
  String apiKey;

  @Option(
      names = LaunchArgs.PARALLEL,
      paramLabel = "N",
      description =
          "With --serve: sequences generating at once; only 1 today (strata-ref's sessions have"
              + " one sequence).")
  String parallel;

  @Option(
      names = LaunchArgs.QUEUE,
      paramLabel = "N",
      description =
          "With --serve: the most requests waiting for the engine, 1..1024; more are answered 503"
              + " with Retry-After (default: 16).")
  String queue;

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

  /** The request the parsed options make: what {@link LaunchArgs#simple} makes of a simple list. */
  LaunchFlow.Request request() {
    return new LaunchFlow.Request(
        config,
        dryRun,
        plan,
        explain,
        json.json(),
        isolate,
        hostFile.value(),
        new LaunchFlow.Generate(
            prompt, promptFile, nPredict, temp, topK, topP, seed, saveSession, loadSession),
        new LaunchFlow.Serve(serve, chat, host, port, apiKey, parallel, queue));
  }

  @Override
  public Integer call() {
    return new LaunchFlow(io, machine).run(request());
  }
}
