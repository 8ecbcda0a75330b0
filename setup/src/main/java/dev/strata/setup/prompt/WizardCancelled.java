package dev.strata.setup.prompt;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;

/** Ctrl-C or Ctrl-D at a question: the wizard stops, writes nothing, exits 130. */
public final class WizardCancelled extends StrataException {
  private static final long serialVersionUID = 1L;

  public WizardCancelled(String how) {
    super(ExitCodes.INTERRUPTED, "cancelled (" + how + "): nothing written");
  }
}
