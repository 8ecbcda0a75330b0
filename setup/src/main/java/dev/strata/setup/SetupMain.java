package dev.strata.setup;

/** Entry point of {@code strata-setup}: builds the command line from {@link SetupCli} and exits. */
public final class SetupMain {
  private SetupMain() {}

  public static void main(String[] args) {
    System.exit(SetupCli.create(SetupCli.Io.system()).execute(args));
  }
}
