package dev.strata.launcher;

import dev.strata.cli.CommandNames;
import dev.strata.cli.FastPath;
import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.cli.MainExit;
import dev.strata.metal.HostProbe;

/**
 * Entry point of {@code strata-launch}. A simple argument list ({@link LaunchOptions#simple}: the
 * scripted {@code --dry-run --config FILE}, a plain launch, {@code --plan --json} and their kin)
 * goes straight to the {@link LaunchFlow}; any other goes through picocli ({@link LaunchCli}). The
 * fast path exists for start-up time: it loads no picocli class (Java 5 class files, outside the
 * AOT cache, verified one by one) and builds no reflective model (docs/PERFORMANCE.md §2). Both
 * ways end in the same flow and report a refusal with the same {@link Io#report}, end with {@link
 * Io#finish} (a lost standard output is exit 2); {@link MainExit} ends the process.
 */
public final class LaunchMain {
  private LaunchMain() {}

  public static void main(String[] args) {
    MainExit.end(run(Io.system(), Machine.system(HostProbe::probe), args));
  }

  /**
   * What {@link #main} does on {@code io} and {@code machine}, up to the exit: the fast path when
   * {@code args} are simple, else picocli. For tests and embeddings that must run exactly the
   * command a user runs.
   *
   * @return the exit code (docs/RELIABILITY.md)
   */
  public static int run(Io io, Machine machine, String[] args) {
    return io.finish(CommandNames.LAUNCH, execute(io, machine, args));
  }

  private static int execute(Io io, Machine machine, String[] given) {
    return FastPath.execute(
        io,
        CommandNames.LAUNCH,
        given,
        LaunchOptions.PATHS,
        LaunchOptions::simple,
        args -> LaunchCli.create(io, machine).execute(args),
        request -> new LaunchFlow(io, machine).run(request));
  }
}
