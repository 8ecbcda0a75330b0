package dev.strata.engine.ffm;

/**
 * Receives the engine's log lines as they come.
 *
 * <p><b>Threading:</b> the engine may call the sink from any of its threads, including several at
 * once, and from threads the JVM did not start. Implementations must be thread-safe and should
 * return quickly (the engine thread waits). An exception thrown by the sink never reaches native
 * code: {@link NativeEngine} catches it, keeps the first one (see {@link
 * NativeEngine#lastSinkFailure()}) and drops later lines of that run.
 */
@FunctionalInterface
public interface LogSink {
  void line(LogLevel level, String line);
}
