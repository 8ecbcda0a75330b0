package dev.strata.engine.config;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;

/**
 * A config the toolkit will not use: its file, the line and column of the problem, and one line
 * saying what is wrong — {@code engine.yaml:7:3: unknown key 'shard' in model (known: shards)}.
 * Exit code 2.
 */
public final class ConfigException extends StrataException {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final int line;
  private final int column;
  private final String detail;

  /**
   * @param source the file as the user named it, or a label such as "(config)"
   * @param line 1-based line, 0 when the problem has no position (the file as a whole)
   * @param column 1-based column, 0 when unknown
   * @param detail what is wrong, one line
   */
  public ConfigException(String source, int line, int column, String detail) {
    super(ExitCodes.USAGE, format(source, line, column, detail));
    this.source = source;
    this.line = line;
    this.column = column;
    this.detail = detail;
  }

  private static String format(String source, int line, int column, String detail) {
    String where =
        line <= 0 ? source : column <= 0 ? source + ":" + line : source + ":" + line + ":" + column;
    return where + ": " + detail;
  }

  /** The file as the user named it. */
  public String source() {
    return source;
  }

  /** 1-based line, 0 when none. */
  public int line() {
    return line;
  }

  /** 1-based column, 0 when none. */
  public int column() {
    return column;
  }

  /** The message without the position. */
  public String detail() {
    return detail;
  }
}
