package dev.strata.setup;

import dev.strata.cli.Cli;
import dev.strata.cli.CliSpec;
import dev.strata.cli.CompletionCommand;
import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.metal.HostProbe;
import dev.strata.setup.prompt.JLinePrompter;
import dev.strata.setup.prompt.Prompter;
import java.io.IOException;
import picocli.CommandLine;

/**
 * The single factory of the {@code strata-setup} command line, used by {@link SetupMain} and by
 * tests: the command and its subcommands, their options from their tables ({@link CliSpec}), on the
 * shared CLI kit ({@link Cli#configure}), so its errors, colours and exit codes are the launcher's.
 */
public final class SetupCli {
  private SetupCli() {}

  /** Opens the wizard's prompter; the command closes it in a {@code finally}. */
  @FunctionalInterface
  public interface PrompterFactory {
    Prompter open(Io io) throws IOException;

    /** The system terminal through JLine. */
    static PrompterFactory system() {
      return io -> JLinePrompter.system(io.env());
    }
  }

  /** This process's machine (the live probe) and terminal. */
  public static CommandLine create(Io io) {
    return create(io, Machine.system(HostProbe::probe), PrompterFactory.system());
  }

  /**
   * The command line on {@code machine}, the wizard asking through {@code prompter}.
   *
   * @param io streams, environment, terminal
   * @param machine os.name, working folder, distribution paths, probe, clock
   * @param prompter opens the wizard's terminal
   */
  public static CommandLine create(Io io, Machine machine, PrompterFactory prompter) {
    CommandLine cl =
        new CommandLine(CliSpec.of(new SetupCommand(io, machine, prompter), SetupOptions.TABLE));
    cl.addSubcommand(new CommandLine(CliSpec.of(new ProbeCommand(), ProbeCommand.OPTIONS)));
    cl.addSubcommand(new DemoModelCommand());
    cl.addSubcommand(new CompletionCommand());
    cl.addSubcommand(new CommandLine.HelpCommand());
    return Cli.configure(cl, io);
  }
}
