package dev.strata.launcher.run;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;

/** The engine's child process died (a native crash under {@code --isolate}): exit 70. */
public final class EngineCrashedException extends StrataException {
  private static final long serialVersionUID = 1L;

  public EngineCrashedException(String message) {
    super(ExitCodes.ENGINE_CRASHED, message);
  }
}
