package dev.strata.launcher.run;

import java.util.List;
import java.util.Map;

/**
 * A loaded engine the supervisor can run and stop: in this process through FFM ({@link
 * InProcessRunner}) or in a child JVM ({@link IsolatedRunner}, {@code --isolate}).
 */
public interface EngineRunner {

  /**
   * Sets the engine's environment, runs {@code strata_engine_main} to completion and returns its
   * code. Blocks the calling thread; the log receives the engine's lines as they come.
   *
   * @param args the engine's arguments, without argv[0]
   * @param env variables set in the engine's process before it starts
   * @throws dev.strata.engine.StrataException when the engine cannot be started or crashed
   */
  int run(List<String> args, Map<String, String> env, EngineLog log);

  /** Asks the engine to stop (it returns 130 soon after). Any thread, any number of times. */
  void cancel();

  /**
   * Called when the launcher gives up waiting and halts: an isolated child is killed so it does not
   * outlive the launcher. In-process there is nothing left to do.
   */
  default void abandon() {}
}
