package dev.strata.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code <command> completion bash|zsh}: the shell completion script of the root command, on
 * stdout. picocli's script is bash; for zsh it is preceded by the two lines that load zsh's {@code
 * compinit} and {@code bashcompinit}, so {@code source <(… completion zsh)} works in a bare zsh.
 */
@Command(
    name = CommandNames.COMPLETION,
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Print the shell completion script of ${ROOT-COMMAND-NAME}.",
      "  bash:  source <(${ROOT-COMMAND-NAME} completion bash)",
      "  zsh:   source <(${ROOT-COMMAND-NAME} completion zsh)"
    })
public final class CompletionCommand implements Callable<Integer> {

  /** The shells a script is written for. */
  public enum Shell {
    bash,
    zsh
  }

  /** What zsh needs before a bash completion script. */
  static final String ZSH_PRELUDE =
      "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n";

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "SHELL", description = "bash or zsh")
  Shell shell;

  @Override
  public Integer call() {
    CommandLine root = spec.root().commandLine();
    String script = AutoComplete.bash(root.getCommandName(), root);
    CommandLine self = spec.commandLine();
    self.getOut().print(shell == Shell.zsh ? ZSH_PRELUDE + script : script);
    self.getOut().flush();
    return 0;
  }
}
