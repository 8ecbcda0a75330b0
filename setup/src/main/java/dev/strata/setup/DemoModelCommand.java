package dev.strata.setup;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code strata-setup demo-model}: a GGUF split set with the seed's geometry (issue 6). */
@Command(
    name = "demo-model",
    mixinStandardHelpOptions = true,
    description =
        "Write a demo model: a GGUF split set with the seed's geometry, sparse zero data.")
public final class DemoModelCommand implements Callable<Integer> {
  @ParentCommand SetupCommand parent;

  @Override
  public Integer call() {
    parent.io().err().println("strata-setup demo-model: not built yet (issue 6)");
    return 2;
  }
}
