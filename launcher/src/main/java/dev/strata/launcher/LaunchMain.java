package dev.strata.launcher;

import dev.strata.engine.cli.Io;

/** Entry point of {@code strata-launch}: builds the command line from {@link LaunchCli}, exits. */
public final class LaunchMain {
  private LaunchMain() {}

  public static void main(String[] args) {
    System.exit(LaunchCli.create(Io.system()).execute(args));
  }
}
