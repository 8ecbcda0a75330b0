package dev.strata.setup;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code strata-setup completion bash|zsh}: the shell completion script, on stdout. */
@Command(
    name = "completion",
    mixinStandardHelpOptions = true,
    description = {
      "Print the shell completion script of strata-setup.",
      "  bash:  source <(strata-setup completion bash)",
      "  zsh:   source <(strata-setup completion zsh)"
    })
public final class CompletionCommand implements Callable<Integer> {
  @ParentCommand SetupCommand parent;
  @Spec CommandLine.Model.CommandSpec spec;

  enum Shell {
    bash,
    zsh
  }

  @Parameters(paramLabel = "SHELL", description = "bash or zsh")
  Shell shell;

  @Override
  public Integer call() {
    CommandLine root = spec.root().commandLine();
    String script = AutoComplete.bash("strata-setup", root);
    if (shell == Shell.zsh) {
      // picocli's script runs in zsh through bashcompinit
      script =
          "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n"
              + script;
    }
    parent.io().out().print(script);
    parent.io().out().flush();
    return 0;
  }
}
