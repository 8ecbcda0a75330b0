package dev.strata.setup.prompt;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;

/**
 * Ctrl-C or Ctrl-D at a question: the wizard stops, writes nothing, exits 130; a SIGHUP or SIGTERM
 * exits 129 or 143 (docs/RELIABILITY.md "The wizard and signals").
 */
public final class WizardCancelled extends StrataException {
  private static final long serialVersionUID = 1L;

  public WizardCancelled(String how) {
    this(how, ExitCodes.INTERRUPTED);
  }

  /** Cancelled with {@code exitCode} (128 + the signal's number for a signal). */
  public WizardCancelled(String how, int exitCode) {
    super(exitCode, "cancelled (" + how + "): nothing written");
  }
}
