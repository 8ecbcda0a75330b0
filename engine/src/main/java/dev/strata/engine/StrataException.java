package dev.strata.engine;

/**
 * A user-facing failure: one line of message, a documented exit code, no stack trace shown. Every
 * typed error of the toolkit (config, GGUF, host file, preflight) extends it, so the commands catch
 * exactly one type at the top.
 */
public class StrataException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int exitCode;

  public StrataException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  public StrataException(int exitCode, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  /** The exit code the command returns for this failure ({@link ExitCodes}). */
  public int exitCode() {
    return exitCode;
  }
}
