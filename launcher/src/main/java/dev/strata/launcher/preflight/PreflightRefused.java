package dev.strata.launcher.preflight;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;

/** A preflight check refused the launch: one line, exit 3, the engine not started. */
public final class PreflightRefused extends StrataException {
  private static final long serialVersionUID = 1L;

  public PreflightRefused(String message) {
    super(ExitCodes.PREFLIGHT, message);
  }

  /**
   * A refusal in the words of the failure that caused it: {@code lead} (often empty), then {@code
   * cause}'s message; {@code cause} kept as the cause.
   */
  public PreflightRefused(String lead, Throwable cause) {
    super(ExitCodes.PREFLIGHT, lead + cause.getMessage(), cause);
  }
}
