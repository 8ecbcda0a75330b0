package dev.strata.launcher.run;

import dev.strata.engine.ffm.NativeEngine;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * The engine's environment in this process: set through libc before an engine call (the engines
 * read it with getenv), put back as it was after. One place for the launch ({@link
 * InProcessRunner}) and the engine's own check (preflight), so both see the same environment.
 */
public final class EngineEnv {
  private EngineEnv() {}

  /**
   * Puts {@code env} over the process environment, runs {@code call}, then puts the environment
   * back as it was: a JVM that runs several launches (the end-to-end tests, {@code ./strata demo})
   * must not leak one config's switches into the next engine. Linear in the number of entries
   * ({@link NativeEngine#overlayEnv}: one new {@code environ}, not a {@code setenv} per entry,
   * which libc makes quadratic); a config holds at most {@code ConfigCodec.MAX_BYTES} of them.
   */
  public static int with(NativeEngine engine, Map<String, String> env, IntSupplier call) {
    Runnable restore = engine.overlayEnv(env);
    try {
      return call.getAsInt();
    } finally {
      restore.run();
    }
  }
}
