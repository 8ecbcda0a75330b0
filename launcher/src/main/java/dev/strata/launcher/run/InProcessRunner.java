package dev.strata.launcher.run;

import dev.strata.engine.ffm.LogLevel;
import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.ffm.VerifiedLibrary;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/**
 * The engine in this process: the library loaded through FFM ({@link NativeEngine}), its env set
 * through libc, {@code strata_engine_main} called on the launcher's main thread. The fastest path
 * and the one that gives a core dump when the engine faults; {@code --isolate} trades that for a
 * one-line report.
 */
public final class InProcessRunner implements EngineRunner {
  private final NativeEngine engine;

  private InProcessRunner(NativeEngine engine) {
    this.engine = engine;
  }

  /**
   * Loads the checked library — the open file preflight checked, never its path again — (the loader
   * refuses it, ABI mismatch: a one-line error, exit 3) and says which engine it is on standard
   * error.
   */
  public static InProcessRunner load(VerifiedLibrary library, PrintWriter out) {
    NativeEngine engine = library.load();
    out.println("strata-launch: engine " + engine.name() + " (ABI " + engine.abiVersion() + ")");
    out.flush();
    return new InProcessRunner(engine);
  }

  @Override
  public int run(List<String> args, Map<String, String> env, EngineLog log) {
    try {
      return EngineEnv.with(
          engine, env, () -> engine.run(args, (level, text) -> log.line(code(level), text)));
    } finally {
      engine.close();
    }
  }

  /** The C ABI's level number of a line (0 info, 1 warn, 2 error). */
  public static int code(LogLevel level) {
    return switch (level) {
      case INFO -> EngineLog.INFO;
      case WARN -> EngineLog.WARN;
      case ERROR -> EngineLog.ERROR;
    };
  }

  @Override
  public void cancel() {
    engine.cancel();
  }
}
