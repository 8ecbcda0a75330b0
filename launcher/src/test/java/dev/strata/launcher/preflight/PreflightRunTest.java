package dev.strata.launcher.preflight;

import static dev.strata.launcher.preflight.PreflightFixture.LINUX;
import static dev.strata.launcher.preflight.PreflightFixture.lines;
import static dev.strata.launcher.preflight.PreflightFixture.profile;
import static dev.strata.launcher.preflight.PreflightFixture.refusal;
import static dev.strata.launcher.preflight.PreflightFixture.strataRef;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.TinyModel;
import dev.strata.launcher.preflight.PreflightFixture.Cfg;
import dev.strata.testsupport.OpenFiles;
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
 * Preflight run in this JVM ({@link Preflight#full}, {@link Preflight#forPlan}) on the demo model
 * (4 shards) with strata-ref answering for itself: each check's verdict and line, the exit code of
 * a config error (2) and of a refusal (3), that a refused check stops the checks, and that the
 * checked library is held open only while something will load it.
 */
@DisabledOnOs(OS.WINDOWS)
class PreflightRunTest {
  @TempDir static Path dir;
  static List<Path> shards;
  static Cfg base;
  static Path cfgPath;

  @BeforeAll
  static void demoModel() throws IOException {
    // a model strata-ref computes, with the seed's attention (its check refuses the seed,
    // qwen3next)
    shards = TinyModel.seedAttention().write(dir.resolve("model"), "seed", 4, 11);
    base = Cfg.of(shards);
    cfgPath = dir.resolve("conf/engine.yaml");
  }

  static Preflight.Report full(Cfg c, HostFacts here) {
    return Preflight.full(c.config(), cfgPath, here, Map.of());
  }

  static Preflight.Report full(Cfg c, HostFacts here, Map<String, String> inherited) {
    return Preflight.full(c.config(), cfgPath, here, inherited);
  }

  /** A config error: exit 2, one line starting with the config's path, in every mode. */
  static String configError(Cfg c) {
    StrataException e =
        assertThrows(StrataException.class, () -> full(c, LINUX).close(), "a config error");
    assertFalse(e instanceof PreflightRefused, "a config error is not a refusal");
    assertEquals(ExitCodes.USAGE, e.exitCode());
    StrataException p =
        assertThrows(
            StrataException.class, () -> Preflight.forPlan(c.config(), cfgPath, LINUX, Map.of()));
    assertEquals(ExitCodes.USAGE, p.exitCode());
    assertEquals(e.getMessage(), p.getMessage(), "--plan says what the launch says");
    String prefix = cfgPath + ": ";
    assertTrue(e.getMessage().startsWith(prefix), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
    return e.getMessage().substring(prefix.length());
  }

  static boolean procFd() {
    return Files.isDirectory(Path.of("/proc/self/fd"));
  }

  @Test
  void aGoodConfigPassesEveryCheckInOrderAndHoldsTheLibraryOpenUntilClosed() throws IOException {
    Path real = strataRef().toRealPath();
    long before = procFd() ? OpenFiles.on(real) : 0;
    Preflight.Report r = full(base, LINUX);
    try {
      assertFalse(r.refused());
      assertNull(r.refusal());
      assertEquals(List.of(), r.warnings());
      List<String> l = lines(r);
      assertEquals(7, l.size(), l.toString());
      assertEquals("config OK cpu-reference backend; 4 args, 0 env", l.get(0));
      assertEquals("kv OK int8 pools (default: no --kv)", l.get(1));
      assertTrue(
          l.get(2).startsWith("library OK " + real + " (sha256 not pinned); loads "), l.get(2));
      assertEquals("model OK qwen3moe, 4 shard(s), 12 QSA layers, 2 KV heads × 256", l.get(3));
      assertEquals("host OK this machine is the config's host (AMD EPYC 7B13)", l.get(4));
      assertEquals("plan OK fits this machine", l.get(5));
      assertTrue(r.engine().name().startsWith("strata-ref "), r.engine().name());
      assertEquals(
          "engine OK " + r.engine().name() + " checked this launch itself: it would start",
          l.get(6));
      assertEquals(Backend.CPU_REFERENCE, r.backend());
      assertEquals(real, r.library());
      assertEquals(base.args(), r.args(), "absolute paths pass unchanged");
      assertEquals(4096, r.engineArgs().ctx());
      assertEquals(4, r.model().shards().size());
      assertTrue(r.plan().fits());
      assertNotNull(r.verified(), "the launch loads the library preflight checked");
      assertEquals(real, r.verified().checked().real());
      if (procFd()) {
        assertEquals(before + 1, OpenFiles.on(real), "held open for the launch");
      }
    } finally {
      r.close();
    }
    if (procFd()) {
      assertEquals(before, OpenFiles.on(real), "closing the report closes the library");
    }
  }

  @Test
  void configErrorsAreExit2AndNameTheField() throws IOException {
    assertEquals("engine.backend: unknown backend 'gpu'", configError(base.backend("gpu")));
    // a backend spelled otherwise than its id: the flag table did not check the args for it
    assertEquals(
        "args: not checked for the cpu-reference backend",
        configError(base.backend("CPU-Reference")));
    assertEquals(
        "args: --ctx: 'many' is not a whole number in 1..1048576",
        configError(base.args("--model", shards.getFirst().toString(), "--ctx", "many")));
    assertTrue(
        configError(base.env("LD_PRELOAD", "/tmp/x.so"))
            .startsWith("env LD_PRELOAD is refused: it changes how the engine process loads code"));
    assertEquals(
        "model.shards is empty: list the model's shards, first shard first",
        configError(base.shards(List.of())));
    Cfg second = base.args("--model", shards.get(1).toString(), "--ctx", "4096");
    assertEquals(
        "args --model "
            + shards.get(1)
            + " is not the first of model.shards ("
            + shards.getFirst()
            + "): make them agree, or rerun strata-setup",
        configError(second));
  }

  @Test
  void strataRefsPoolRuleAcceptsThePoolExactlyFullAndRefusesOneCellMore() {
    // --ctx 4096: 4096 + 128 cells (engine/native/src/startup.c)
    assertEquals(
        "args: --prompt-tokens 4000 + --n-predict 225 exceed the pool's 4224 cells (--ctx 4096"
            + " + 128): lower them, or raise --ctx",
        configError(base.plus("--prompt-tokens", "4000", "--n-predict", "225")));
    try (Preflight.Report r =
        full(base.plus("--prompt-tokens", "4000", "--n-predict", "224"), LINUX)) {
      assertFalse(r.refused(), () -> lines(r).toString());
      assertEquals("engine", r.checks().getLast().name(), "strata-ref accepts it too");
      assertEquals(Preflight.Status.OK, r.checks().getLast().status());
    }
    // the defaults (512 prompt tokens + 64 decode steps) at a small context
    assertEquals(
        "args: --prompt-tokens 512 + --n-predict 64 exceed the pool's 384 cells (--ctx 256 +"
            + " 128): lower them, or raise --ctx",
        configError(base.args("--model", shards.getFirst().toString(), "--ctx", "256")));
  }

  @Test
  void aMetalConfigOffTheMacIsRefusedAtTheHostAndTheLibraryIsClosed() throws IOException {
    Path real = strataRef().toRealPath();
    long before = procFd() ? OpenFiles.on(real) : 0;
    // the pool rule is strata-ref's: a metal config at --ctx 256 is no config error
    Cfg metal = base.backend("metal").args("--model", shards.getFirst().toString(), "--ctx", "256");
    try (Preflight.Report r = full(metal, LINUX)) {
      assertEquals(
          "the config targets the metal backend but this machine is linux (AMD EPYC 7B13): it runs"
              + " on a Mac; to plan it here, add --host-file with the Mac's profile (strata-setup"
              + " probe --list-hosts) or its host file; to run here, use a cpu-reference config"
              + " (strata-setup --engine-lib with strata-ref)",
          refusal(r));
      assertEquals(
          List.of("config", "kv", "library", "model", "host"),
          r.checks().stream().map(Preflight.Check::name).toList());
      assertNull(r.verified(), "nothing will load the library");
      assertNull(r.plan());
      assertNull(r.engine());
      if (procFd()) {
        assertEquals(before, OpenFiles.on(real), "the checked library is closed again");
      }
    }
    // made on a Mac a profile describes: the refusal names that profile (docs/LAUNCH.md)
    try (Preflight.Report r = full(metal.host(profile("m4-pro-48")), LINUX)) {
      assertEquals(
          "the config targets the metal backend but this machine is linux (AMD EPYC 7B13): it runs"
              + " on a Mac; to plan it here, add --host-file m4-pro-48 (the profile of the config's"
              + " host); to run here, use a cpu-reference config (strata-setup --engine-lib with"
              + " strata-ref)",
          refusal(r));
    }
    // on a Mac's profile the host check passes and the plan is the Metal engine's
    try (Preflight.Report r =
        Preflight.forPlan(metal.config(), cfgPath, profile("m4-pro-48"), Map.of())) {
      assertEquals(
          "host WARN the config was made for another machine: os linux → macos, chip AMD EPYC"
              + " 7B13 → Apple M4 Pro, memory 16.00 GiB → 48.00 GiB, cores 2P+0E → 10P+4E, GPU"
              + " family 0 → 1009; the plan is for this one",
          lines(r).get(3));
      assertEquals(Backend.METAL, r.plan().backend());
    }
  }

  @Test
  void kvChoicesAndTheirRefusals() {
    try (Preflight.Report r = full(base.plus("--kv", "q4_0"), LINUX)) {
      assertEquals("kv OK q4_0 pools (--kv q4_0)", lines(r).get(1));
      assertFalse(r.refused());
    }
    try (Preflight.Report r = full(base.plus("--kv", "k8v4"), LINUX)) {
      assertEquals(KvRules.K8V4_REFUSAL, refusal(r));
      assertEquals(
          List.of("config", "kv"), r.checks().stream().map(Preflight.Check::name).toList());
      assertNull(r.library(), "refused before the library is opened");
      assertNull(r.verified());
      assertNull(r.kv());
    }
    // the config's own env counts for the KV rules
    try (Preflight.Report r = full(base.plus("--kv", "int8").env("STRATA_KV_ROT", "1"), LINUX)) {
      assertEquals(KvRules.KV_ROT_INT8_REFUSAL, refusal(r));
    }
    PreflightRefused forPlan =
        assertThrows(
            PreflightRefused.class,
            () ->
                Preflight.forPlan(
                    base.plus("--kv", "k8v4").config(), cfgPath, profile("m4-24"), Map.of()));
    assertEquals(ExitCodes.PREFLIGHT, forPlan.exitCode());
    assertEquals(KvRules.K8V4_REFUSAL, forPlan.getMessage());
  }

  @Test
  void switchesInheritedFromTheEnvironmentCountAndAreNamed() {
    Cfg int8 = base.plus("--kv", "int8");
    try (Preflight.Report r = full(int8, LINUX, Map.of("STRATA_KV_ROT", "1", "HOME", "/h"))) {
      assertEquals(KvRules.KV_ROT_INT8_REFUSAL, refusal(r));
      assertEquals(
          "env WARN from your environment, not the config, the engine also gets STRATA_KV_ROT=1",
          lines(r).get(1));
    }
    // every inherited switch, sorted; other variables are not the engine's switches
    try (Preflight.Report r =
        full(
            base,
            LINUX,
            Map.of("STRATA_METAL_PROMPT", "window", "STRATA_KV_ROT", "0", "PATH", "/bin"))) {
      assertFalse(r.refused());
      assertEquals(
          "env WARN from your environment, not the config, the engine also gets STRATA_KV_ROT=0"
              + " STRATA_METAL_PROMPT=window",
          lines(r).get(1));
      assertEquals(1, r.warnings().size(), () -> lines(r).toString());
      assertEquals(Map.of(), r.env(), "the report's env is the config's");
    }
    // the config's value wins over the inherited one, and is not reported as inherited
    try (Preflight.Report r =
        full(int8.env("STRATA_KV_ROT", "0"), LINUX, Map.of("STRATA_KV_ROT", "1", "HOME", "/h"))) {
      assertFalse(r.refused(), () -> lines(r).toString());
      assertEquals("kv OK int8 pools (--kv int8)", lines(r).get(1));
      assertEquals(List.of(), r.warnings());
      assertEquals(Map.of("STRATA_KV_ROT", "0"), r.env());
      assertEquals("config OK cpu-reference backend; 6 args, 1 env", lines(r).get(0));
    }
  }

  @Test
  void theToolkitsOwnVariablesAreNotNamedAsTheEnginesSwitches() {
    // what a user's or CI's environment holds: the default config, the memory-now source, the
    // probe's mode, serve's secret key, the suite's data folder; none is an engine switch
    Map<String, String> inherited =
        Map.of(
            "STRATA_CONFIG", "/h/engine.yaml",
            "STRATA_MEMINFO", "/dev/null",
            "STRATA_PROBE", "sysctl-only",
            "STRATA_API_KEY", "s3cret-key",
            "STRATA_SHARED_DATA", "/work/shared/data");
    try (Preflight.Report r = full(base, LINUX, inherited)) {
      assertFalse(r.refused(), () -> lines(r).toString());
      assertTrue(
          lines(r).stream().noneMatch(l -> l.startsWith("env ") || l.contains("s3cret")),
          () -> lines(r).toString());
      assertEquals(List.of(), r.warnings());
    }
    // beside them, a real switch is still named, alone
    Map<String, String> more = new java.util.HashMap<>(inherited);
    more.put("STRATA_METAL_PROMPT", "window");
    try (Preflight.Report r = full(base, LINUX, more)) {
      assertEquals(
          "env WARN from your environment, not the config, the engine also gets"
              + " STRATA_METAL_PROMPT=window",
          lines(r).get(1));
    }
  }

  @Test
  void aPinnedLibraryIsNamedAsPinnedAndAWrongPinRefusesBeforeTheModel() throws IOException {
    Path real = strataRef().toRealPath();
    String sha = LibraryTrust.sha256Of(real);
    try (Preflight.Report r = full(base.library(real, sha), LINUX)) {
      assertTrue(
          lines(r).get(2).startsWith("library OK " + real + " (sha256 matches the pin); loads "),
          lines(r).get(2));
      assertFalse(r.refused());
    }
    String wrong =
        (sha.charAt(63) == '0' ? sha.substring(0, 63) + "1" : sha.substring(0, 63) + "0");
    try (Preflight.Report r = full(base.library(real, wrong), LINUX)) {
      String m = refusal(r);
      assertTrue(
          m.startsWith(
              "engine library " + strataRef() + " does not match engine.sha256 in " + cfgPath),
          m);
      assertTrue(m.endsWith("restore the library, or rerun strata-setup to pin the new one"), m);
      assertEquals(
          List.of("config", "kv", "library"),
          r.checks().stream().map(Preflight.Check::name).toList());
      assertNull(r.model(), "refused before the model is read");
    }
  }

  @Test
  void relativePathsAreTakenFromTheConfigsFolderAndTheEngineGetsThemAbsolute() {
    // cfgPath is dir/conf/engine.yaml; the working folder is elsewhere (the module's)
    Path confDir = cfgPath.getParent();
    List<String> rel = shards.stream().map(p -> confDir.relativize(p).toString()).toList();
    assertTrue(rel.getFirst().startsWith("../model/"), rel.getFirst());
    Cfg c =
        base.shards(rel)
            .library(confDir.relativize(strataRef().toAbsolutePath()).toString())
            .args("--ctx", "4096", "--model", rel.getFirst(), "--kv", "q4_0");
    try (Preflight.Report r = full(c, LINUX)) {
      assertFalse(r.refused(), () -> lines(r).toString());
      assertEquals(
          List.of("--ctx", "4096", "--model", shards.getFirst().toString(), "--kv", "q4_0"),
          r.args(),
          "--model's value, only it, replaced by its absolute path");
      assertEquals(rel, r.config().model().shards(), "the config itself is left as written");
      assertEquals(Preflight.Status.OK, r.checks().getLast().status(), "strata-ref found it");
    }
  }

  @Test
  void aRelativePathBesideAConfigInASharedFolderIsRefusedBeforeItIsRead() throws IOException {
    // a config in a sticky world-writable folder (like /tmp, which may hold a config) names its
    // model relative to that folder: another user could have put a file of that name there first
    Path shared = Files.createDirectories(dir.resolve("shared"));
    Files.setAttribute(shared, "unix:mode", 01777);
    Path sharedCfg = shared.resolve("engine.yaml");
    for (Path s : shards) { // what another user would have put there
      Files.copy(s, shared.resolve(s.getFileName()));
    }
    List<String> names = shards.stream().map(p -> p.getFileName().toString()).toList();
    Cfg c = base.shards(names).args("--model", names.getFirst(), "--ctx", "4096");
    // thrown by the config check, as its errors are (before the library or the model is read)
    PreflightRefused e =
        assertThrows(
            PreflightRefused.class,
            () -> Preflight.full(c.config(), sharedCfg, LINUX, Map.of()).close());
    assertEquals(ExitCodes.PREFLIGHT, e.exitCode());
    assertEquals(
        "the config "
            + sharedCfg
            + " names the relative path '"
            + names.getFirst()
            + "', but its folder "
            + shared
            + " may be written by others: anyone could put a file of that name there first"
            + " (give the absolute path in the config, or keep the config in a folder only you"
            + " can write)",
        e.getMessage());
    // the same config naming the file absolutely is the user's own choice: it is read
    List<String> absolute = names.stream().map(n -> shared.resolve(n).toString()).toList();
    Cfg abs = base.shards(absolute).args("--model", absolute.getFirst(), "--ctx", "4096");
    try (Preflight.Report r = Preflight.full(abs.config(), sharedCfg, LINUX, Map.of())) {
      assertNotNull(r.model(), () -> lines(r).toString());
    }
  }

  @Test
  void withAbsolutePathsReplacesOnlyTheValueAfterModel() {
    assertEquals(
        List.of("--model", "/abs/m.gguf", "--ctx", "--model"),
        PreflightRun.withAbsolutePaths(
            List.of("--model", "m.gguf", "--ctx", "--model"), Path.of("/abs/m.gguf")));
    assertEquals(
        List.of("--ctx", "8", "--model", "/abs/m.gguf"),
        PreflightRun.withAbsolutePaths(
            List.of("--ctx", "8", "--model", "m.gguf"), Path.of("/abs/m.gguf")));
  }

  @Test
  void aConfigMadeForAnotherMachineIsAWarningAndThePlanIsForThisOne() {
    try (Preflight.Report r = full(base.host(profile("m4-pro-48")), LINUX)) {
      assertFalse(r.refused());
      Preflight.Check host = r.checks().get(4);
      assertEquals(
          "host WARN the config was made for another machine: os macos → linux, chip Apple M4 Pro"
              + " → AMD EPYC 7B13, memory 48.00 GiB → 16.00 GiB (less), cores 10P+4E → 2P+0E, GPU"
              + " family 1009 → 0; the plan is for this one",
          lines(r).get(4));
      assertEquals(List.of(host), r.warnings());
      assertEquals(LINUX, r.here(), "planned for this machine");
    }
    try (Preflight.Report r = full(base.host(null), LINUX)) {
      assertEquals(
          "host WARN the config was made for another machine: the config has no host; the plan is"
              + " for this one",
          lines(r).get(4));
    }
  }

  @Test
  void aMachineWhoseMemoryIsUnknownIsRefusedByThePlanNotCrashed() {
    HostFacts noMemory =
        new HostFacts("linux", "AMD EPYC 7B13", 2, 2, 0, 0, 0, false, false, "Debian", 0);
    try (Preflight.Report r = full(base.host(noMemory), noMemory)) {
      assertEquals("memory plan: host memory_bytes must be positive, got 0", refusal(r));
      assertInstanceOf(IllegalArgumentException.class, r.refusal().getCause());
      assertEquals("plan", r.checks().getLast().name());
      assertNull(r.engine(), "the engine is not asked after a refusal");
    }
  }

  @Test
  void forPlanSkipsTheLibraryAndNamesWhyTheEnginesItemsAreMissing() {
    Path missing = dir.resolve("no-such-lib/libstrata_metal.dylib");
    try (Preflight.Report r =
        Preflight.forPlan(base.library(missing.toString()).config(), cfgPath, LINUX, Map.of())) {
      assertFalse(r.refused());
      assertEquals(
          List.of("config", "kv", "model", "host", "plan"),
          r.checks().stream().map(Preflight.Check::name).toList());
      assertNull(r.library());
      assertNull(r.verified());
      assertNull(r.engine());
      assertTrue(
          r.engineNote()
              .startsWith(
                  "the engine's own items are not shown: engine library not found: " + missing),
          r.engineNote());
    }
    // issue 28: an unpinned library is not loaded by a plan (loading runs its code)
    try (Preflight.Report r = Preflight.forPlan(base.config(), cfgPath, LINUX, Map.of())) {
      assertNull(r.engine(), "the unpinned library is not asked");
      assertTrue(r.engineNote().startsWith("not asked: engine.library in "), r.engineNote());
      assertNull(r.verified());
    }
    Cfg pinned = base.library(strataRef(), LibraryTrust.sha256Of(strataRef()));
    try (Preflight.Report r = Preflight.forPlan(pinned.config(), cfgPath, LINUX, Map.of())) {
      assertNull(r.engineNote());
      assertNotNull(r.engine(), "strata-ref's own plan items");
      assertTrue(r.engine().checked());
      assertNull(r.verified(), "--plan loads nothing it keeps");
    }
  }

  @Test
  void anUnexpectedFailureAfterTheLibraryCheckStillClosesIt() throws IOException {
    assumeTrue(procFd(), "needs /proc/self/fd to count descriptors");
    Path real = strataRef().toRealPath();
    long before = OpenFiles.on(real);
    // a host without facts is a bug in the caller, not a refusal: it propagates as it is
    assertThrows(NullPointerException.class, () -> full(base, null).close());
    assertEquals(before, OpenFiles.on(real), "the checked library is closed");
  }
}
