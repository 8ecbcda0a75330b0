package dev.strata.launcher.run;

import dev.strata.engine.ffm.EngineLoadException;
import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.ffm.Session;
import dev.strata.engine.ffm.VerifiedLibrary;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code strata-launch --prompt}: the engine in this process, as {@link InProcessRunner} loads it,
 * but run through a session (ABI 3) instead of {@code strata_engine_main}: opened with the config's
 * exact argv and env, a {@link Generation} on it, closed. Under the {@link Supervisor} like every
 * launch: a signal cancels the session's eval in progress and stops the generation.
 */
public final class GenerateRunner implements EngineRunner {
  private final NativeEngine engine;
  private final Generation.Options options;
  private final Consumer<String> text;
  private volatile Generation running;
  private volatile boolean cancelled;
  private Generation.Result result;

  private GenerateRunner(NativeEngine engine, Generation.Options options, Consumer<String> text) {
    this.engine = engine;
    this.options = options;
    this.text = text;
  }

  /**
   * Loads the checked library and says which engine it is (on {@code out}, standard error).
   *
   * @param text receives the generated text as it is made
   * @throws EngineLoadException (exit 3) when the library cannot be loaded, or speaks an ABI
   *     without sessions (one line: which ABI it speaks, that generation needs ABI 3)
   */
  public static GenerateRunner load(
      VerifiedLibrary library, PrintWriter out, Generation.Options options, Consumer<String> text) {
    return new GenerateRunner(withSessions(library, out, "--prompt", "generation"), options, text);
  }

  /**
   * Loads the checked library for a use that needs sessions ({@code --prompt}, {@code --serve},
   * {@code --chat}) and says which engine it is on {@code out}.
   *
   * @throws EngineLoadException (exit 3) when it cannot be loaded, or has no sessions (one line
   *     naming {@code what} and that {@code needs} needs ABI 3)
   */
  public static NativeEngine withSessions(
      VerifiedLibrary library, PrintWriter out, String what, String needs) {
    NativeEngine engine = library.load();
    if (!engine.hasSessions()) {
      String why = engine.needsSessions(what, needs);
      engine.close();
      throw new EngineLoadException(why);
    }
    out.println("strata-launch: engine " + engine.name() + " (ABI " + engine.abiVersion() + ")");
    out.flush();
    return engine;
  }

  @Override
  public int run(List<String> args, Map<String, String> env, EngineLog log) {
    return SessionFrame.run(engine, args, env, log, null, this::generate);
  }

  private int generate(Session session) {
    try {
      Generation g = new Generation(session, options);
      running = g;
      if (cancelled) {
        g.cancel();
      }
      result = g.run(text);
      return result.exitCode();
    } catch (Generation.SnapshotRefused e) {
      return e.exitCode(); // the engine said why, in one line through the log
    } finally {
      running = null;
    }
  }

  /** What the generation made; null before it ended (or when the session did not open). */
  public Generation.Result result() {
    return result;
  }

  @Override
  public void cancel() {
    cancelled = true;
    Generation g = running;
    if (g != null) {
      g.cancel();
    }
  }
}
