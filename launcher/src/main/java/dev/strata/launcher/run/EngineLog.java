package dev.strata.launcher.run;

/**
 * Where the engine's log lines go. Called from engine threads, possibly several at once:
 * implementations must be thread-safe and must not throw.
 */
@FunctionalInterface
public interface EngineLog {
  /** Level 0: information. */
  int INFO = 0;

  /** Level 1: warning. */
  int WARN = 1;

  /** Level 2: error. */
  int ERROR = 2;

  /**
   * One line of the engine's log.
   *
   * @param level 0 info, 1 warn, 2 error (docs/ENGINE-ABI.md); anything else is treated as an error
   * @param text the line, without its line terminator
   */
  void line(int level, String text);
}
