package dev.strata.metal;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns a CPU brand or model string into the host JSON's {@code chip}. Pure. */
final class ChipName {
  private static final Pattern APPLE = Pattern.compile("Apple M\\d+(?: (?:Pro|Max|Ultra))?");
  static final int MAX = 128;

  private ChipName() {}

  /**
   * "Apple M4 Pro" from {@code machdep.cpu.brand_string} (also out of decorated forms such as a
   * virtual machine's "Apple M2 (Virtual)"); any other brand comes back with whitespace collapsed
   * and control characters dropped, clipped to {@value #MAX} characters; blank gives "unknown".
   */
  static String of(String brand) {
    String clean = clean(brand);
    Matcher m = APPLE.matcher(clean);
    if (m.find()) {
      return m.group();
    }
    return clean.isEmpty() ? "unknown" : clean;
  }

  /** Collapses whitespace, drops control and format characters, clips to {@value #MAX}. */
  static String clean(String s) {
    StringBuilder b = new StringBuilder();
    s.codePoints()
        .map(c -> Character.isISOControl(c) || Character.getType(c) == Character.FORMAT ? ' ' : c)
        .forEach(b::appendCodePoint);
    String out = b.toString().strip().replaceAll("\\s+", " ");
    return out.length() > MAX ? out.substring(0, MAX).strip() : out;
  }
}
