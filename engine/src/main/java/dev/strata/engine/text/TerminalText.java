package dev.strata.engine.text;

/**
 * The one escape for text shown to a person: every path, config value, YAML scalar, diff line and
 * message the commands print to a terminal goes through {@link #escape}, so a file name or a
 * hand-edited config holding {@code ESC ] 0 ; … BEL} (retitles the terminal) or {@code ESC [ 2 J}
 * (clears it) is shown, never obeyed. JSON output does not use it: the JSON writer escapes raw
 * values its own way (as a six-character Unicode escape) and stays valid JSON.
 *
 * <p>Made visible (docs/RELIABILITY.md, "Terminal output"):
 *
 * <ul>
 *   <li>{@code \n}, {@code \r}, {@code \t} as those two-character escapes;
 *   <li>every other C0 control (U+0000–U+001F) and DEL (U+007F) as {@code \xHH} — ESC is {@code
 *       \x1B};
 *   <li>C1 controls (U+0080–U+009F: a terminal takes U+009B as CSI), Unicode format characters
 *       (bidi overrides such as U+202E, zero-width joiners: category Cf), line and paragraph
 *       separators (U+2028, U+2029) and unpaired surrogates as backslash-u and four hex digits.
 * </ul>
 *
 * Everything else, backslashes included, passes unchanged: a plain path prints as itself.
 */
public final class TerminalText {
  private TerminalText() {}

  /**
   * {@code s} with every control, format and separator character made visible; null prints as
   * {@code null}.
   */
  public static String escape(CharSequence s) {
    if (s == null) {
      return "null";
    }
    int n = s.length();
    int i = 0;
    while (i < n && !needsEscape(s, i)) {
      i++;
    }
    if (i == n) {
      return s.toString();
    }
    StringBuilder b = new StringBuilder(n + 16);
    b.append(s, 0, i);
    while (i < n) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, s.charAt(i + 1));
        if (Character.getType(cp) == Character.FORMAT) {
          b.append(String.format("\\U%08X", cp));
        } else {
          b.append(c).append(s.charAt(i + 1));
        }
        i += 2;
        continue;
      }
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            b.append(String.format("\\x%02X", (int) c));
          } else if (visibleAsIs(c)) {
            b.append(c);
          } else {
            b.append(String.format("\\u%04X", (int) c));
          }
        }
      }
      i++;
    }
    return b.toString();
  }

  /**
   * A multi-line text (a diff) with each line {@link #escape}d and its line breaks kept: {@code \n}
   * ends a line, every other control character inside a line is made visible.
   */
  public static String escapeLines(String text) {
    if (text == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(text.length() + 16);
    int start = 0;
    while (start < text.length()) {
      int nl = text.indexOf('\n', start);
      int end = nl < 0 ? text.length() : nl;
      b.append(escape(text.substring(start, end)));
      if (nl >= 0) {
        b.append('\n');
      }
      start = end + 1;
    }
    return b.toString();
  }

  /** Whether {@link #escape} would change {@code s}. */
  public static boolean isClean(CharSequence s) {
    for (int i = 0; i < s.length(); i++) {
      if (needsEscape(s, i)) {
        return false;
      }
    }
    return true;
  }

  private static boolean needsEscape(CharSequence s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        return Character.getType(Character.toCodePoint(c, s.charAt(i + 1))) == Character.FORMAT;
      }
      return true;
    }
    if (Character.isLowSurrogate(c)) {
      // the second half of a pair is judged with its first half
      return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
    }
    return !visibleAsIs(c);
  }

  private static boolean visibleAsIs(char c) {
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      return false;
    }
    int type = Character.getType(c);
    return type != Character.FORMAT
        && type != Character.LINE_SEPARATOR
        && type != Character.PARAGRAPH_SEPARATOR
        && type != Character.SURROGATE;
  }
}
