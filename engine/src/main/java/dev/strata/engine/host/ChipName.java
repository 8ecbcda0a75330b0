package dev.strata.engine.host;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns a CPU brand or model string into the host JSON's {@code chip}. Pure. */
public final class ChipName {
  /** In a holder: the Linux probe uses only {@link #clean} and should not compile it. */
  private static final class Apple {
    static final Pattern NAME = Pattern.compile("Apple M\\d+(?: (?:Pro|Max|Ultra))?");
  }

  public static final int MAX = 128;

  private ChipName() {}

  /**
   * "Apple M4 Pro" from {@code machdep.cpu.brand_string} (also out of decorated forms such as a
   * virtual machine's "Apple M2 (Virtual)"); any other brand comes back with whitespace collapsed
   * and control characters dropped, clipped to {@value #MAX} characters; blank gives "unknown".
   */
  public static String of(String brand) {
    String clean = clean(brand);
    Matcher m = Apple.NAME.matcher(clean);
    if (m.find()) {
      return m.group();
    }
    return clean.isEmpty() ? "unknown" : clean;
  }

  /**
   * Collapses whitespace, drops control and format characters, clips to {@value #MAX} UTF-16
   * characters (one fewer where the last would be half of a surrogate pair).
   */
  public static String clean(String s) {
    // A plain loop rather than streams and regexes: this runs on every probe, in a fresh JVM.
    StringBuilder b = new StringBuilder(Math.min(s.length(), MAX));
    boolean space = false;
    for (int i = 0, c; i < s.length() && b.length() < MAX; i += Character.charCount(c)) {
      c = s.codePointAt(i);
      if (Character.isWhitespace(c)
          || Character.isISOControl(c)
          || Character.getType(c) == Character.FORMAT
          || Character.isSpaceChar(c)) {
        space = b.length() > 0;
        continue;
      }
      if (space) {
        b.append(' ');
        space = false;
      }
      b.appendCodePoint(c);
    }
    if (b.length() <= MAX) {
      return b.toString();
    }
    // never cut a surrogate pair in half: a lone surrogate has no UTF-8 form (it is written as "?")
    return b.substring(0, Character.isHighSurrogate(b.charAt(MAX - 1)) ? MAX - 1 : MAX).strip();
  }
}
