package dev.strata.engine.ffm;

import dev.strata.engine.StrataException;

/**
 * A session call the engine refused, with the engine's own code as the exit code: {@code
 * strata_session_open}'s 2 (usage), 3 (refused), 4 (out of memory); {@code strata_session_eval}'s 2
 * (a bad argument) or 130 (cancelled). The engine has already logged its reason (one line, level 2)
 * to the session's {@link LogSink}: the message only says which call answered what.
 */
public final class SessionException extends StrataException {
  private static final long serialVersionUID = 1L;

  public SessionException(int code, String message) {
    super(code, message);
  }

  /** Whether the call ended because it was cancelled ({@link Session#cancel()}): code 130. */
  public boolean cancelled() {
    return exitCode() == dev.strata.engine.ExitCodes.INTERRUPTED;
  }
}
