package dev.strata.engine;

/**
 * Exit codes shared by both commands (docs/RELIABILITY.md). Everything else is the engine's own
 * code.
 */
public final class ExitCodes {
  /** Success. */
  public static final int OK = 0;

  /** Usage or config error: a bad flag, a bad file, a missing answer. */
  public static final int USAGE = 2;

  /** Preflight refused: the config cannot run on this machine or with this library. */
  public static final int PREFLIGHT = 3;

  /** The engine crashed in an isolated child process (--isolate). */
  public static final int ENGINE_CRASHED = 70;

  /** Hung up: SIGHUP (the terminal or ssh session went away); the engine was cancelled. */
  public static final int HANGUP = 129;

  /** Interrupted by SIGINT / Ctrl-C, or Ctrl-D in the wizard. */
  public static final int INTERRUPTED = 130;

  /** Terminated by SIGTERM. */
  public static final int TERMINATED = 143;

  private ExitCodes() {}
}
