package dev.strata.launcher;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code strata-launch completion bash|zsh}: prints a completion script. picocli's script is bash
 * and also runs under zsh through {@code bashcompinit}, which the script loads itself when it finds
 * {@code $ZSH_VERSION}.
 */
@Command(
    name = "completion",
    mixinStandardHelpOptions = true,
    description = {
      "Print a shell completion script for strata-launch.",
      "",
      "bash:  source <(strata-launch completion bash)",
      "zsh:   source <(strata-launch completion zsh)   (loads bashcompinit itself)"
    })
public final class CompletionCommand implements Callable<Integer> {
  /** The shells the script is written for. */
  public enum Shell {
    bash,
    zsh
  }

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "SHELL", description = "bash or zsh")
  Shell shell;

  @Override
  public Integer call() {
    CommandLine root = spec.commandLine().getParent();
    spec.commandLine().getOut().print(AutoComplete.bash(root.getCommandName(), root));
    spec.commandLine().getOut().flush();
    return 0;
  }
}
