package dev.strata.setup.prompt;

/**
 * {@code <} or {@code back} at a question that has one before it: the wizard returns to the
 * previous question (or to the summary). Control flow only: no stack trace is filled in.
 */
public final class WizardBack extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public WizardBack() {
    super("back", null, false, false);
  }

  /** True when an input line asks to go back: {@code <} or {@code back} (any case). */
  public static boolean isBack(String input) {
    String s = input.strip();
    return s.equals("<") || s.equalsIgnoreCase("back");
  }
}
