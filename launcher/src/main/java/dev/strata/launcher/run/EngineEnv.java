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
   * Sets {@code env}, runs {@code call}, then restores every variable it set to this process's
   * starting value (or unsets it): a JVM that runs several launches (the end-to-end tests, {@code
   * ./strata demo}) must not leak one config's switches into the next engine.
   */
  public static int with(NativeEngine engine, Map<String, String> env, IntSupplier call) {
    env.forEach(engine::setEnv);
    try {
      return call.getAsInt();
    } finally {
      Map<String, String> initial = System.getenv();
      env.keySet()
          .forEach(
              k -> {
                if (initial.containsKey(k)) {
                  engine.setEnv(k, initial.get(k));
                } else {
                  engine.unsetEnv(k);
                }
              });
    }
  }
}
