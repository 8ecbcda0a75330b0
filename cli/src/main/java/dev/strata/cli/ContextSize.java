package dev.strata.cli;

import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.ValueKind;
import dev.strata.engine.text.AsciiDigits;
import dev.strata.engine.text.Clip;

/**
 * A context size as people write it, the one rule for {@code --ctx} (strata-setup and {@code
 * strata-launch demo}: {@link EngineOptions#context}), the answers file's {@code ctx} and the
 * wizard: ASCII digits, optionally grouped with {@code ,} or {@code _}, optionally ending in {@code
 * k} or {@code K} for × 1,024 ({@code 32k} = 32,768, as llama.cpp's sizes are quoted), in the flag
 * table's {@code --ctx} range (1..1,048,576, {@link EngineFlags#MAX_CTX}). A number outside it — 0,
 * negative ({@code -5}), too large, too large even to hold ({@code 99999999999999999999}) — is told
 * the range, not how a size is written.
 */
public final class ContextSize {
  private ContextSize() {}

  /** The most digits {@link #parse} reads: more are out of range whatever they say. */
  private static final int MAX_DIGITS = 12;

  /**
   * The size in tokens, or -1 when {@code text} is not a size by the rule above (a sign, or more
   * than 12 digits, included: see {@link #isNumber}); the range is checked by {@link #problem}.
   */
  public static long parse(String text) {
    String s = digits(text);
    if (s == null || !AsciiDigits.all(s)) {
      return -1;
    }
    s = s.replaceFirst("^0+(?=.)", ""); // 0004096 is 4096
    if (s.length() > MAX_DIGITS) {
      return -1;
    }
    return Long.parseLong(s) * (isKilo(text) ? 1024 : 1);
  }

  /**
   * Whether {@code text} is a number by the rule above with a leading {@code -}, or with more
   * digits than any context: a number out of range, not a malformed size.
   */
  public static boolean isNumber(String text) {
    String s = digits(text);
    if (s == null) {
      return false;
    }
    if (s.startsWith("-")) {
      s = s.substring(1);
    }
    return !s.isEmpty() && AsciiDigits.all(s);
  }

  /** The text without grouping and without its k; null when nothing is left. */
  private static String digits(String text) {
    String s = text.strip().replace(",", "").replace("_", "");
    if (isKilo(text)) {
      s = s.substring(0, s.length() - 1);
    }
    return s.isEmpty() ? null : s;
  }

  private static boolean isKilo(String text) {
    String s = text.strip();
    return s.endsWith("k") || s.endsWith("K");
  }

  /**
   * What a context given as {@code text} is told, or null when it is a size in range: {@code '32kb'
   * is not a context size: …}, or the flag table's range line ({@code 0 is out of range (a whole
   * number in 1..1048576)}, {@code -5 is out of range (…)}).
   */
  public static String problem(String text) {
    long v = parse(text);
    ValueKind range = EngineFlags.lookup(EngineFlags.CTX).kind();
    if (v >= 0) {
      return range.problem(Long.toString(v));
    }
    if (isNumber(text)) {
      return Clip.clip(text.strip()) + " is out of range (" + range.describe() + ")";
    }
    String shown = "'" + Clip.clip(text.strip()) + "' is not a context size: ";
    return AsciiDigits.hasForeignDigit(text)
        ? shown + "ASCII digits 0-9 only (32768, or 32k for x 1,024)"
        : shown + "tokens as digits (32768), or with k for x 1,024 (32k)";
  }
}
