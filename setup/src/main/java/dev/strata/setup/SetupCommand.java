package dev.strata.setup;

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
 * {@code strata-setup}: generate an engine config (the wizard asks what the flags do not say). The
 * command's text; its options are {@link SetupOptions#TABLE}'s, its subcommands {@link SetupCli}'s.
 */
@Command(
    name = CommandNames.SETUP,
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
      "129:the wizard got SIGHUP (the terminal went away): nothing written, the terminal restored",
      "130:cancelled (Ctrl-C, Ctrl-D or no at the confirmation; Ctrl-C while --measure-kv"
          + " measures without a terminal): nothing written",
      "143:the wizard got SIGTERM: nothing written, the terminal restored"
    })
public final class SetupCommand implements Callable<Integer> {

  private final Io io;
  private final Machine machine;
  private final SetupCli.PrompterFactory prompter;

  @Spec CommandSpec spec;

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

  /** What the options say, for {@link SetupFlow}: {@link SetupOptions#request}. */
  SetupFlow.Request request() {
    return SetupOptions.request(CliSpec.values(spec, SetupOptions.TABLE));
  }

  @Override
  public Integer call() {
    return new SetupFlow(io, machine, prompter).run(request());
  }
}
