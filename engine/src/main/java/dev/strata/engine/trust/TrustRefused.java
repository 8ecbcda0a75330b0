package dev.strata.engine.trust;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;

/**
 * A file that decides what runs (the engine library, the config, a folder above them) failed the
 * ownership or permission rule ({@link OwnerRule}), or could not be opened and checked: one line
 * naming the path, its owner and mode and what to do; exit 3 ({@link ExitCodes#PREFLIGHT}).
 */
public final class TrustRefused extends StrataException {
  private static final long serialVersionUID = 1L;

  public TrustRefused(String message) {
    super(ExitCodes.PREFLIGHT, message);
  }
}
