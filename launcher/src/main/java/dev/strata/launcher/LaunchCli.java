package dev.strata.launcher;

import dev.strata.cli.Cli;
import dev.strata.cli.CliSpec;
import dev.strata.cli.CompletionCommand;
import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.metal.HostProbe;
import picocli.CommandLine;

/**
 * The single factory of the {@code strata-launch} command line (and its {@code demo}), used by
 * {@link LaunchMain} and by tests: the command and its subcommands, their options from their tables
 * ({@link CliSpec}), on the shared CLI kit ({@link Cli#configure}).
 */
public final class LaunchCli {
  private LaunchCli() {}

  /** This process's machine: the live probe. */
  public static CommandLine create(Io io) {
    return create(io, Machine.system(HostProbe::probe));
  }

  /** The command line on {@code machine} (a test's host: preflight plans for its probe). */
  public static CommandLine create(Io io, Machine machine) {
    CommandLine cl =
        new CommandLine(CliSpec.of(new LaunchCommand(io, machine), LaunchOptions.TABLE));
    cl.addSubcommand(new CommandLine(CliSpec.of(new DemoCommand(), DemoCommand.OPTIONS)));
    cl.addSubcommand(new CompletionCommand());
    cl.addSubcommand(new CommandLine.HelpCommand());
    return Cli.configure(cl, io);
  }
}
