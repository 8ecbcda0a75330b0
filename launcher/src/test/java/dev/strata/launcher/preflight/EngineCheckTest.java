package dev.strata.launcher.preflight;

import static dev.strata.launcher.preflight.PreflightFixture.LINUX;
import static dev.strata.launcher.preflight.PreflightFixture.lines;
import static dev.strata.launcher.preflight.PreflightFixture.refBuild;
import static dev.strata.launcher.preflight.PreflightFixture.refusal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.model.DemoModel;
import dev.strata.launcher.preflight.PreflightFixture.Cfg;
import dev.strata.testsupport.OpenFiles;
import dev.strata.testsupport.StandInLibrary;
import dev.strata.testsupport.StandInLibrary.LogLine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Preflight's last check, the engine's own ({@link EngineCheck}), in this JVM: strata-ref of ABI 2
 * (its check accepts) and of ABI 1 (no check: a warning that the launcher's rules decided), the
 * engine module's wrong-ABI builds (a refusal naming the library), and an ABI 2 stand-in whose
 * check refuses whatever it is given — an engine whose rules differ from the launcher's — for the
 * launch (a refusal naming the engine's first error line) and for {@code --plan} (a warning).
 */
@DisabledOnOs(OS.WINDOWS)
class EngineCheckTest {
  @TempDir static Path dir;
  static Cfg base;
  static Path refusing;
  static Path silent;
  static final Path CFG = Path.of("/nonexistent-strata/engine.yaml");

  @BeforeAll
  static void setUp() throws IOException, InterruptedException {
    base = Cfg.of(DemoModel.write(dir.resolve("model"), 1));
    Path libs = Files.createDirectories(dir.resolve("libs"));
    Path marker = dir.resolve("loaded.txt");
    refusing =
        StandInLibrary.compileWithCheck(
            libs,
            "refusing",
            marker,
            3,
            List.of(
                new LogLine(0, "refusing: checking"),
                new LogLine(1, "kv: a warning is not an error"),
                new LogLine(2, "memory: this engine needs 99 GiB"),
                new LogLine(2, "a second error line"),
                new LogLine(0, "plan: item=kv bytes=1024")));
    silent = StandInLibrary.compileWithCheck(libs, "silent", marker, 4, List.of());
  }

  /**
   * The config with {@code lib} pinned by its sha256, as strata-setup writes it: a plan (and a dry
   * run) loads only a pinned library (701718a), so its engine check runs only then.
   */
  static Cfg pinned(Path lib) {
    return base.library(lib, LibraryTrust.sha256Of(lib));
  }

  static Preflight.Report full(Path lib) {
    return Preflight.full(base.library(lib, null).config(), CFG, LINUX, Map.of());
  }

  @Test
  void anAbi1EngineHasNoCheckAndTheVerdictSaysItIsTheLaunchersOwn() {
    try (Preflight.Report r = full(refBuild("abi1/libstrata_ref.so"))) {
      assertFalse(r.refused());
      Preflight.EngineVerdict v = r.engine();
      assertFalse(v.checked());
      assertEquals(1, v.abi());
      assertEquals(0, v.code());
      assertEquals(List.of(), v.planLines());
      assertTrue(v.name().startsWith("strata-ref "), v.name());
      assertEquals(
          "engine WARN "
              + v.name()
              + " is an ABI 1 engine without strata_engine_check: this verdict comes from the"
              + " launcher's own rules, not the engine's",
          lines(r).getLast());
      assertEquals(List.of(r.checks().getLast()), r.warnings());
    }
  }

  @Test
  void anEngineOfAnotherAbiOrMissingASymbolIsRefusedNamingTheLibrary() throws IOException {
    Path mismatch = refBuild("libstrata_abi_mismatch.so");
    try (Preflight.Report r = full(mismatch)) {
      String m = refusal(r);
      assertTrue(m.startsWith("engine library "), m);
      assertTrue(
          m.contains(
              " has ABI version 999, this launcher speaks ABI versions 1..3 (use an engine and a"
                  + " launcher from the same release)"),
          m);
      assertEquals("engine", r.checks().getLast().name());
      assertNull(r.engine(), "nothing answered");
      assertNull(r.verified(), "nothing will load it");
    }
    // a library that lacks an ABI symbol is refused by its header check, before the loader
    // (LibraryFile, a3e7a26: "is not a Strata engine library: it lacks the symbol …")
    try (Preflight.Report r = full(refBuild("libstrata_missing_symbol.so"))) {
      String m = refusal(r);
      assertTrue(m.contains("strata_kv_decode"), m);
      assertEquals("library", r.checks().getLast().name());
    }
  }

  @Test
  void anEngineThatRefusesRefusesTheLaunchWithItsFirstErrorLine() throws IOException {
    long before = Files.isDirectory(Path.of("/proc/self/fd")) ? OpenFiles.on(refusing) : 0;
    try (Preflight.Report r = full(refusing)) {
      assertEquals(
          "refusing refuses this launch (strata_engine_check returned 3): memory: this engine needs"
              + " 99 GiB",
          refusal(r));
      Preflight.EngineVerdict v = r.engine();
      assertTrue(v.checked());
      assertEquals(2, v.abi());
      assertEquals(3, v.code());
      assertEquals("memory: this engine needs 99 GiB", v.firstError());
      assertEquals(List.of("plan: item=kv bytes=1024"), v.planLines(), "its plan items only");
      assertNull(r.verified(), "a refused launch loads nothing");
      assertTrue(r.plan().fits(), "the launcher's own rules passed");
    }
    if (Files.isDirectory(Path.of("/proc/self/fd"))) {
      assertEquals(before, OpenFiles.on(refusing), "the checked library is closed again");
    }
    try (Preflight.Report r = full(silent)) {
      assertEquals(
          "silent refuses this launch (strata_engine_check returned 4): no error line", refusal(r));
    }
  }

  @Test
  void forPlanAnEngineThatRefusesIsAWarningAndThePlanIsShown() {
    try (Preflight.Report r = Preflight.forPlan(pinned(refusing).config(), CFG, LINUX, Map.of())) {
      assertFalse(r.refused());
      assertEquals(
          "engine WARN refusing refuses this launch (strata_engine_check returned 3): memory: this"
              + " engine needs 99 GiB",
          lines(r).getLast());
      assertEquals(3, r.engine().code());
      assertNull(r.engineNote());
      assertNull(r.verified());
    }
  }

  @Test
  void forPlanAnEngineThatCannotLoadIsANoteNotARefusal() {
    try (Preflight.Report r =
        Preflight.forPlan(
            pinned(refBuild("libstrata_abi_mismatch.so")).config(), CFG, LINUX, Map.of())) {
      assertFalse(r.refused());
      assertTrue(
          r.engineNote().startsWith("the engine's own items are not shown: engine library "),
          r.engineNote());
      assertTrue(r.engineNote().contains("has ABI version 999"), r.engineNote());
    }
  }
}
