package dev.strata.engine.text;

import java.util.regex.Pattern;

/** A word as a POSIX shell reads it back: how a command line the user may paste is printed. */
public final class ShellWords {
  private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_./:=@%+,-]+");

  private ShellWords() {}

  /** {@code a} as is when the shell reads it unchanged, else in single quotes. */
  public static String quote(String a) {
    if (!a.isEmpty() && SAFE.matcher(a).matches()) {
      return a;
    }
    return "'" + a.replace("'", "'\\''") + "'";
  }
}
