package dev.strata.engine.text;

/**
 * The one rule for numbers typed by people (flag values, config args, the answers file, the
 * wizard): ASCII digits {@code 0-9} only. Java's {@link Character#isDigit} and {@link
 * Long#parseLong} also take other scripts' digits ({@code '４０９６'}, {@code '٢'}); the engines parse
 * with ASCII only (engine/native/src/flags.c), so the launcher refuses what the engine would refuse
 * (docs/CONFIG.md).
 */
public final class AsciiDigits {
  private AsciiDigits() {}

  /** Whether {@code s} is one or more ASCII digits and nothing else. */
  public static boolean all(CharSequence s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (!is(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code c} is one of {@code 0-9}. */
  public static boolean is(char c) {
    return c >= '0' && c <= '9';
  }

  /**
   * Whether {@code s} has a digit of another script (for a message that says why it is refused).
   */
  public static boolean hasForeignDigit(CharSequence s) {
    return s.codePoints().anyMatch(c -> Character.isDigit(c) && !(c >= '0' && c <= '9'));
  }
}
