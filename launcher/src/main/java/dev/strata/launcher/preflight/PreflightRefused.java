package dev.strata.launcher.preflight;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;

/** A preflight check refused the launch: one line, exit 3, the engine not started. */
public final class PreflightRefused extends StrataException {
  private static final long serialVersionUID = 1L;

  public PreflightRefused(String message) {
    super(ExitCodes.PREFLIGHT, message);
  }

  public PreflightRefused(String message, Throwable cause) {
    super(ExitCodes.PREFLIGHT, message, cause);
  }
}
