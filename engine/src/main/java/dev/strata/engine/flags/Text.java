package dev.strata.engine.flags;

import java.nio.charset.StandardCharsets;

/** Checks on free text that ends up in argv or the environment of a process. */
final class Text {
  private Text() {}

  /**
   * @return null when {@code s} can be passed to a process as one argv item or env value, else what
   *     is wrong ("contains a NUL character", ...)
   */
  static String problem(String s, int maxBytes) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == 0) {
        // C strings end at NUL: the engine would see a different value than the config says
        return "contains a NUL character";
      }
      if (c == '\n' || c == '\r') {
        return "contains a line break";
      }
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return "is not valid Unicode text (a lone surrogate)";
      }
    }
    int bytes = s.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > maxBytes) {
      return "is " + bytes + " bytes long (at most " + maxBytes + ")";
    }
    return null;
  }
}
