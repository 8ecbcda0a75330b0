package dev.strata.engine.ffm;

/** The level of an engine log line ({@code strata_log_fn}: 0 info, 1 warn, 2 error). */
public enum LogLevel {
  INFO,
  WARN,
  ERROR;

  /** Maps the C level; anything outside 0..2 is treated as an error line rather than dropped. */
  public static LogLevel fromCode(int code) {
    return switch (code) {
      case 0 -> INFO;
      case 1 -> WARN;
      default -> ERROR;
    };
  }
}
