package dev.strata.launcher.preflight;

import dev.strata.engine.StrataException;
import dev.strata.engine.ffm.CheckAnswer;
import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.ffm.VerifiedLibrary;
import java.util.List;

/**
 * Preflight's last check, the engine's own (docs/LAUNCH.md "One truth"): the checked library is
 * loaded and {@code strata_engine_check} called with exactly the argv and environment the launch
 * passes to {@code strata_engine_main}.
 */
final class EngineCheck {
  private EngineCheck() {}

  /**
   * Asks the engine: loads the checked library (the verified open file, as the launch does) and
   * calls {@code strata_engine_check} with the launch's argv and env.
   *
   * @param refuseOnNo whether a non-zero answer refuses (the launch, --dry-run) or is shown ({@code
   *     --plan})
   */
  static void run(PreflightRun r, VerifiedLibrary verified, boolean refuseOnNo) {
    if (!verified.checked().pinned() && !r.loadUnpinned) {
      r.engineNote = notAsked(r);
      r.warn("engine", r.engineNote);
      return;
    }
    NativeEngine lib;
    try {
      lib = verified.load();
    } catch (StrataException e) {
      throw r.refuse("engine", new PreflightRefused("", e));
    }
    try (lib) {
      String name = lib.name();
      if (!lib.hasCheck()) {
        r.engine = new Preflight.EngineVerdict(name, lib.abiVersion(), false, 0, null, List.of());
        r.warn(
            "engine",
            name
                + " is an ABI "
                + lib.abiVersion()
                + " engine without strata_engine_check: this verdict comes from the launcher's"
                + " own rules, not the engine's");
        return;
      }
      CheckAnswer a = CheckAnswer.ask(lib, r.engineArgv, r.config.env());
      r.engine =
          new Preflight.EngineVerdict(
              name, lib.abiVersion(), true, a.rc(), a.firstError(), a.planLines());
      if (a.wouldStart()) {
        r.ok("engine", name + " checked this launch itself: it would start");
        return;
      }
      String why = a.why();
      if (refuseOnNo) {
        throw r.refuse("engine", new PreflightRefused(why));
      }
      r.warn("engine", why);
    }
  }

  /**
   * Why a dry run or a plan did not ask the engine: the library is not pinned, and loading it would
   * run its code (its constructors) where the docs promise nothing runs.
   */
  static String notAsked(PreflightRun r) {
    return "not asked: engine.library in "
        + r.where
        + " has no engine.sha256 pin, and a dry run or a plan loads only a pinned library"
        + " (loading runs the library's code); this verdict comes from the launcher's own rules."
        + " To have the engine check too, pin it: engine.sha256: "
        + "<sha256sum of the library> (strata-setup writes the pin)";
  }

  /** {@code --plan}: the engine's own items when its library passes the trust checks. */
  static void forPlan(PreflightRun r) {
    try (VerifiedLibrary checked =
        LibraryTrust.check(
            r.resolve(r.config.engine().library()), r.config.engine().sha256(), r.where)) {
      run(r, checked, false);
    } catch (StrataException e) {
      r.engineNote = "the engine's own items are not shown: " + e.getMessage();
    }
  }
}
