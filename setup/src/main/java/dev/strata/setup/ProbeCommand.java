package dev.strata.setup;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/** {@code strata-setup probe}: what this machine is (issue 5). */
@Command(
    name = "probe",
    mixinStandardHelpOptions = true,
    description = "Show what this machine is.")
public final class ProbeCommand implements Callable<Integer> {
  @ParentCommand SetupCommand parent;

  @Override
  public Integer call() {
    parent.io().err().println("strata-setup probe: not built yet (issue 5)");
    return 2;
  }
}
