package dev.strata.engine.text;

/**
 * The one way a value read from a file, a flag or the environment is quoted into a message: one
 * line, at most {@link #MAX} characters (the middle elided with "…", so both the start and the end,
 * where a file name or a number usually differs, stay visible), and no character that could move
 * the cursor or restyle a terminal. A hostile value can neither flood nor restyle the screen.
 */
public final class Clip {
  /** The longest quoted value, in code points, "…" included. */
  public static final int MAX = 60;

  private Clip() {}

  /** {@code s} clipped to {@link #MAX} code points and made visible ({@link #visible}). */
  public static String clip(String s) {
    return clip(s, MAX);
  }

  /**
   * {@code s} clipped to {@code max} code points (a third from the start, the rest from the end,
   * "…" between) and made visible.
   */
  public static String clip(String s, int max) {
    if (s == null) {
      return "";
    }
    int n = s.codePointCount(0, s.length());
    String t = s;
    if (n > max) {
      int head = max / 3;
      int tail = max - head - 1;
      t =
          s.substring(0, s.offsetByCodePoints(0, head))
              + "…"
              + s.substring(s.offsetByCodePoints(0, n - tail));
    }
    return visible(t);
  }

  /**
   * A message (not a value: it is not shortened) on one line: each line break, with the blanks
   * around it, becomes one space, the ends are stripped, and what is left is made visible. For
   * texts from elsewhere (an exception, a parser) quoted into a one-line message or record.
   */
  public static String oneLine(String message) {
    return message == null ? "" : visible(message.replaceAll("\\s*\\R\\s*", " ").strip());
  }

  /** {@link TerminalText#escape}: the one escape; Clip keeps none of its own. */
  public static String visible(String s) {
    return TerminalText.escape(s);
  }
}
