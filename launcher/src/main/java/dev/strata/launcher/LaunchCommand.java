package dev.strata.launcher;

import dev.strata.cli.CliSpec;
import dev.strata.cli.CommandNames;
import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.cli.VersionProvider;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code strata-launch}: check a config against this machine, then start the engine on it. The
 * command's text; its options are {@link LaunchOptions#TABLE}'s (picocli parses them for help,
 * version, the subcommands and every usage error), its subcommands {@link LaunchCli}'s. What they
 * ask for is a {@link LaunchFlow.Request}, run by the {@link LaunchFlow} the start-up fast path
 * ({@link LaunchOptions#simple}) runs too.
 */
@Command(
    name = CommandNames.LAUNCH,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
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

  @Spec CommandSpec spec;

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

  /** What the parsed options say: {@link LaunchOptions#request}, as the fast path makes it. */
  LaunchFlow.Request request() {
    return LaunchOptions.request(CliSpec.values(spec, LaunchOptions.TABLE));
  }

  @Override
  public Integer call() {
    return new LaunchFlow(io, machine).run(request());
  }
}
