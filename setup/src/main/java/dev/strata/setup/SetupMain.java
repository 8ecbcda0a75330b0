package dev.strata.setup;

import dev.strata.engine.StrataException;
import dev.strata.engine.cli.Io;
import dev.strata.engine.cli.Machine;
import dev.strata.engine.cli.MainExit;
import dev.strata.metal.HostProbe;

/**
 * Entry point of {@code strata-setup}. A simple argument list ({@link SetupArgs#simple}: the
 * scripted {@code --model M --ctx N --experts X --print} and its kin) goes straight to the flow;
 * any other goes through picocli ({@link SetupCli}). Both end in the same {@link SetupFlow} and
 * report a refusal with the same {@link Io#report}; {@link MainExit} ends the process.
 */
public final class SetupMain {
  private SetupMain() {}

  public static void main(String[] args) {
    Io io = Io.system();
    Machine machine = Machine.system(HostProbe::probe);
    SetupCli.PrompterFactory prompter = SetupCli.PrompterFactory.system();
    SetupFlow.Request simple = SetupArgs.simple(args);
    if (simple != null) {
      int code;
      try {
        code = new SetupFlow(io, machine, prompter).run(simple);
      } catch (StrataException e) {
        code = io.report(SetupCommand.NAME, e);
      }
      MainExit.end(code);
      return;
    }
    MainExit.end(SetupCli.create(io, machine, prompter).execute(args));
  }
}
