package dev.strata.setup;

import dev.strata.engine.StrataException;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.ffm.CheckAnswer;
import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.ffm.VerifiedLibrary;
import java.nio.file.Path;

/**
 * After setup wrote a config: the pinned engine library's own check of it ({@link CheckAnswer},
 * what {@code strata-launch --plan} asks), so a config the engine will refuse — a model strata-ref
 * does not compute — is said at once instead of "launch it". Asked only when the library is pinned
 * and loads here (the same open and load a launch makes); otherwise nothing is said beyond the
 * usual hint: a Metal library for another Mac, a library without a check.
 */
final class SetupEngineCheck {
  private SetupEngineCheck() {}

  /**
   * The engine's refusal of {@code config} in one line, or null when it would start or could not be
   * asked.
   *
   * @param workingDir what a relative {@code engine.library} is read against
   * @param where the config's path, for messages
   */
  static String refusal(EngineConfig config, Path workingDir, String where) {
    EngineConfig.Engine e = config.engine();
    if (e.library() == null || e.sha256() == null) {
      return null; // not here, or not pinned: a launch's plan would not load it either
    }
    try (VerifiedLibrary checked =
            VerifiedLibrary.open(
                workingDir.resolve(e.library()), e.sha256(), "engine.library in " + where);
        NativeEngine lib = checked.load()) {
      if (!lib.hasCheck()) {
        return null;
      }
      CheckAnswer a = CheckAnswer.ask(lib, config.args(), config.env());
      return a.wouldStart() ? null : a.why();
    } catch (StrataException | IllegalStateException | UnsupportedOperationException notAsked) {
      // not for this machine's loader, or another check in progress: the launch will say
      return null;
    }
  }
}
