package dev.strata.setup;

import dev.strata.cli.CommandNames;
import dev.strata.cli.FastPath;
import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.cli.MainExit;
import dev.strata.metal.HostProbe;

/**
 * Entry point of {@code strata-setup}. A simple argument list ({@link SetupOptions#simple}: the
 * scripted {@code --model M --ctx N --experts X --print} and its kin) goes straight to the flow;
 * any other goes through picocli ({@link SetupCli}). Both end in the same {@link SetupFlow} and
 * report a refusal with the same {@link Io#report}, end with {@link Io#finish} (a lost standard
 * output is exit 2); {@link MainExit} ends the process.
 */
public final class SetupMain {
  private SetupMain() {}

  public static void main(String[] args) {
    MainExit.end(run(Io.system(), args));
  }

  /**
   * What {@link #main} does on {@code io}, up to the exit, on this machine and terminal: the fast
   * path when {@code args} are simple, else picocli. For tests that must run exactly the command a
   * user runs.
   *
   * @return the exit code (docs/RELIABILITY.md)
   */
  public static int run(Io io, String[] args) {
    return run(io, Machine.system(HostProbe::probe), SetupCli.PrompterFactory.system(), args);
  }

  /** {@link #run(Io, String[])} on {@code machine}, the wizard asking through {@code prompter}. */
  public static int run(Io io, Machine machine, SetupCli.PrompterFactory prompter, String[] args) {
    return io.finish(CommandNames.SETUP, execute(io, machine, prompter, args));
  }

  private static int execute(
      Io io, Machine machine, SetupCli.PrompterFactory prompter, String[] given) {
    return FastPath.execute(
        io,
        CommandNames.SETUP,
        given,
        SetupOptions.PATHS,
        SetupOptions::simple,
        args -> SetupCli.create(io, machine, prompter).execute(args),
        request -> new SetupFlow(io, machine, prompter).run(request));
  }
}
