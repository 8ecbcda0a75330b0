package dev.strata.setup.prompt;

import dev.strata.cli.Io;
import java.util.Map;

/**
 * Terminal colours, or none: off with {@code NO_COLOR} set (https://no-color.org) or without a
 * terminal, so piped output and logs hold plain text.
 */
public record Style(boolean color) {
  public static final Style PLAIN = new Style(false);

  /** Colours by the commands' one rule ({@link Io#colour(Map, boolean)}). */
  public static Style of(Map<String, String> env, boolean terminal) {
    return new Style(Io.colour(env, terminal));
  }

  public String bold(String s) {
    return wrap("1", s);
  }

  public String dim(String s) {
    return wrap("2", s);
  }

  public String error(String s) {
    return wrap("31", s);
  }

  public String good(String s) {
    return wrap("32", s);
  }

  public String accent(String s) {
    return wrap("36", s);
  }

  private String wrap(String code, String s) {
    return color ? "\u001b[" + code + "m" + s + "\u001b[0m" : s;
  }
}
