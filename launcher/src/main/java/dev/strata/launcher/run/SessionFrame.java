package dev.strata.launcher.run;

import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.ffm.Session;
import dev.strata.engine.ffm.SessionException;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What {@code --prompt}, {@code --serve} and {@code --chat} do around their work: the config's
 * environment over the process's ({@link EngineEnv}), one session opened with the config's argv
 * (its lines to the launch's log), the work on it, then the session and the engine closed. A
 * session the engine refuses ends with the engine's code (it said why, through the log).
 */
public final class SessionFrame {
  private SessionFrame() {}

  /** The work on an open session; returns the exit code. */
  @FunctionalInterface
  public interface Work {
    int on(Session session);
  }

  /**
   * Runs {@code work} on a session of {@code engine}, then closes the session and the engine.
   *
   * @param tap sees every line of the engine's too (before the log), or null
   */
  public static int run(
      NativeEngine engine,
      List<String> args,
      Map<String, String> env,
      EngineLog log,
      Consumer<String> tap,
      Work work) {
    try {
      return EngineEnv.with(engine, env, () -> open(engine, args, log, tap, work));
    } finally {
      engine.close();
    }
  }

  private static int open(
      NativeEngine engine, List<String> args, EngineLog log, Consumer<String> tap, Work work) {
    Session session;
    try {
      session =
          engine.openSession(
              args,
              (level, line) -> {
                if (tap != null) {
                  tap.accept(line);
                }
                log.line(InProcessRunner.code(level), line);
              });
    } catch (SessionException e) {
      return e.exitCode(); // the engine said why (its error line went through the log)
    }
    try (session) {
      return work.on(session);
    }
  }
}
