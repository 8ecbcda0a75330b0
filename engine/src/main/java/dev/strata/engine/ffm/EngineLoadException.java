package dev.strata.engine.ffm;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;

/**
 * The engine library cannot be used: missing, not a shared library, unloadable, lacking a symbol of
 * the ABI, or speaking another ABI version. One line, exit 3 ({@link ExitCodes#PREFLIGHT}).
 */
public final class EngineLoadException extends StrataException {
  private static final long serialVersionUID = 1L;

  public EngineLoadException(String message) {
    super(ExitCodes.PREFLIGHT, message);
  }

  public EngineLoadException(String message, Throwable cause) {
    super(ExitCodes.PREFLIGHT, message, cause);
  }
}
