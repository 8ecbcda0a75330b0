package dev.strata.setup;

import dev.strata.engine.StrataException;
import dev.strata.engine.cli.Io;
import dev.strata.engine.cli.Machine;
import dev.strata.metal.HostProbe;

/**
 * Entry point of {@code strata-setup}. A simple argument list ({@link SetupArgs#simple}: the
 * scripted {@code --model M --ctx N --experts X --print} and its kin) goes straight to the flow;
 * any other goes through picocli ({@link SetupCli}). Both end in the same {@link SetupFlow} and
 * report a refusal with the same {@link Io#report}.
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
      if (code != 0) {
        System.exit(code);
      }
      // Success returns instead of System.exit(0): Runtime.exit (JDK 21+) asks System.Logger
      // whether
      // to log the exit, which starts the platform logger and looks for a LoggerFinder service in
      // every jar on the class path: each jar opened, its central directory read. Nothing else on
      // this path opens a jar (the classes come from the AOT cache, the templates are compiled
      // in), so that lookup was most of the jar reading left (docs/PERFORMANCE.md §2c). The flow
      // starts no non-daemon thread (the GPU probe's worker is a daemon), so main's return ends the
      // JVM with status 0 as exit(0) would.
      return;
    }
    System.exit(SetupCli.create(io, machine, prompter).execute(args));
  }
}
