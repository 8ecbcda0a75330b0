package dev.strata.engine.cli;

/**
 * A context size as people write it, the one rule for {@code --ctx} (strata-setup and {@code
 * strata-launch demo}), the answers file's {@code ctx} and the wizard: ASCII digits, optionally
 * grouped with {@code ,} or {@code _}, optionally ending in {@code k} or {@code K} for × 1,024
 * ({@code 32k} = 32,768, as llama.cpp's sizes are quoted).
 */
public final class ContextSize {
  private ContextSize() {}

  /**
   * The size in tokens, or -1 when {@code text} is not a size by the rule above (range is the
   * caller's).
   */
  public static long parse(String text) {
    String s = text.strip().replace(",", "").replace("_", "");
    long mult = 1;
    if (s.endsWith("k") || s.endsWith("K")) {
      mult = 1024;
      s = s.substring(0, s.length() - 1);
    }
    if (s.isEmpty() || s.length() > 12) {
      return -1;
    }
    if (!dev.strata.engine.flags.AsciiDigits.all(s)) {
      return -1;
    }
    return Long.parseLong(s) * mult;
  }

  /** What a bad size is told: the value, and how a size is written. */
  public static String problem(String text) {
    String shown =
        "'" + dev.strata.engine.text.Clip.clip(text.strip()) + "' is not a context size: ";
    return dev.strata.engine.flags.AsciiDigits.hasForeignDigit(text)
        ? shown + "ASCII digits 0-9 only (32768, or 32k for x 1,024)"
        : shown + "tokens as digits (32768), or with k for x 1,024 (32k)";
  }

  /** picocli's converter for {@code --ctx}: the rule above, a usage error otherwise. */
  public static final class Converter implements picocli.CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      long v = parse(value);
      if (v < 0) {
        throw new picocli.CommandLine.TypeConversionException(problem(value));
      }
      return v;
    }
  }
}
