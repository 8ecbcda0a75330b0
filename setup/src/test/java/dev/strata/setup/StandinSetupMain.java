package dev.strata.setup;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.metal.MacProbe;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * strata-setup as a Mac user runs it, in a JVM of its own, with the Mac probe's native calls going
 * to the Darwin stand-in (metal/src/test/native): {@code LIB PROFILE FAULT args...}, FAULT being a
 * stand-in fault such as {@code segv:supportsFamily:} or {@code -} for none. The process exits with
 * strata-setup's code, or dies the way a native fault kills a JVM. Used by {@link
 * GpuProbeCrashTest}.
 */
// Restricted FFM calls are the point of this class.
@SuppressWarnings("restricted")
public final class StandinSetupMain {
  private StandinSetupMain() {}

  public static void main(String[] args) throws Throwable {
    SymbolLookup standin = SymbolLookup.libraryLookup(Path.of(args[0]), Arena.global());
    Linker l = Linker.nativeLinker();
    try (Arena a = Arena.ofConfined()) {
      int bad =
          (int)
              l.downcallHandle(
                      standin.find("standin_load").orElseThrow(),
                      FunctionDescriptor.of(JAVA_INT, ADDRESS))
                  .invokeExact(a.allocateFrom(args[1]));
      if (bad != 0) {
        throw new IllegalStateException(args[1] + ": bad line " + bad);
      }
      if (!args[2].equals("-")) {
        MemorySegment key = a.allocateFrom("fault");
        int rc =
            (int)
                l.downcallHandle(
                        standin.find("standin_set").orElseThrow(),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS))
                    .invokeExact(key, a.allocateFrom(args[2]));
        if (rc != 0) {
          throw new IllegalStateException("fault " + args[2] + " refused");
        }
      }
    }
    Io io = Io.system();
    Machine machine =
        new Machine(
            "Mac OS X",
            Path.of("").toAbsolutePath(),
            null,
            null,
            env -> MacProbe.probeWith(standin, env),
            java.time.Clock.systemUTC());
    SetupCli.PrompterFactory noTerminal =
        x -> {
          throw new IOException("no terminal in this test");
        };
    int code =
        SetupCli.create(io, machine, noTerminal).execute(Arrays.copyOfRange(args, 3, args.length));
    io.out().flush();
    io.err().flush();
    System.exit(code);
  }
}
