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

  /**
   * Where a config problem is.
   *
   * @param source the file as the user named it, or a label such as "(config)"
   * @param line 1-based line, 0 when the problem has no position (the file as a whole)
   * @param column 1-based column, 0 when unknown
   */
  public record Where(String source, int line, int column) {
    /** {@code source}, {@code source:line} or {@code source:line:column}, as far as known. */
    @Override
    public String toString() {
      return line <= 0
          ? source
          : column <= 0 ? source + ":" + line : source + ":" + line + ":" + column;
    }
  }

  private final Where where;

  /**
   * @param source the file as the user named it, or a label such as "(config)"
   * @param line 1-based line, 0 when the problem has no position (the file as a whole)
   * @param column 1-based column, 0 when unknown
   * @param detail what is wrong, one line
   */
  public ConfigException(String source, int line, int column, String detail) {
    this(new Where(source, line, column), detail);
  }

  private ConfigException(Where where, String detail) {
    super(ExitCodes.USAGE, where + ": " + detail);
    this.where = where;
  }

  /** Where the problem is. */
  public Where where() {
    return where;
  }

  /** The message without the position: what follows {@code where + ": "}. */
  public String detail() {
    return getMessage().substring(where.toString().length() + 2);
  }
}
