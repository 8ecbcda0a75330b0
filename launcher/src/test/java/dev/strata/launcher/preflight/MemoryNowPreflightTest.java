package dev.strata.launcher.preflight;

import static dev.strata.launcher.preflight.PreflightFixture.LINUX;
import static dev.strata.launcher.preflight.PreflightFixture.lines;
import static dev.strata.launcher.preflight.PreflightFixture.refusal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.host.AvailableMemory;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.model.DemoModel;
import dev.strata.engine.plan.LaunchMemory;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.launcher.preflight.PreflightFixture.Cfg;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory check of preflight ({@code PreflightRun.checkMemoryNow}) on the demo model (the seed
 * geometry: 19.9 GB of experts) for a 16 GiB Linux machine, with fake figures of the memory
 * available now: nothing here reads this machine's free memory. Every branch: unknown, fits,
 * lowered (stream), refused (stream, resident), and {@code --plan}'s warning.
 */
class MemoryNowPreflightTest {
  private static final long GIB = 1L << 30;
  @TempDir static Path dir;
  static Cfg stream;
  static Path cfgPath;

  @BeforeAll
  static void demoModel() throws IOException {
    // strata-ref built as ABI 1: the engine's own check is not asked (its agreement with the
    // lowered plan is MemoryNowE2eTest's, with the real engine running)
    stream =
        Cfg.of(DemoModel.write(dir.resolve("model"), 4))
            .library(PreflightFixture.refBuild("abi1/libstrata_ref.so").toString())
            .plus("--experts", "stream");
    cfgPath = dir.resolve("conf/engine.yaml");
  }

  static AvailableMemory now(double availableGib) {
    return new AvailableMemory(16 * GIB, (long) (availableGib * GIB), "test meminfo");
  }

  static Preflight.Report full(Cfg c, AvailableMemory now) {
    return Preflight.full(c.config(), cfgPath, new Preflight.Here(LINUX, now), Map.of());
  }

  @Test
  void unknownMemoryChecksNothing() {
    try (Preflight.Report r = full(stream, null)) {
      assertFalse(r.refused(), lines(r).toString());
      assertTrue(r.checks().stream().noneMatch(c -> c.name().equals("memory")));
    }
  }

  @Test
  void aPlanWithinTheRoomIsARowAndChangesNothing() {
    try (Preflight.Report r = full(stream, now(16))) {
      assertFalse(r.refused(), lines(r).toString());
      assertEquals(List.of("engine"), r.warnings().stream().map(c -> c.name()).toList());
      String row = lines(r).get(6);
      assertTrue(
          row.startsWith(
              "memory OK 16.00 GiB available of 16.00 GiB (other processes hold 0 B); this launch"
                  + " holds "),
          row);
      assertEquals(stream.args(), r.args());
    }
  }

  @Test
  void streamModeLowersThisLaunchsBudgetInTheEnginesArgvOnly() {
    MemoryPlan planned;
    try (Preflight.Report open = full(stream, null)) {
      planned = open.plan();
    }
    try (Preflight.Report r = full(stream, now(8))) {
      assertFalse(r.refused(), lines(r).toString());
      Preflight.Check w = r.warnings().getFirst();
      assertEquals("memory", w.name());
      assertTrue(
          w.detail()
              .startsWith(
                  "memory: 8.00 GiB available of 16.00 GiB (other processes hold 8.00 GiB), less"
                      + " the 1.00 GiB margin, is short of the "),
          w.detail());
      long mb = r.plan().budgetBytes() >> 20;
      assertTrue(w.detail().contains("(--mem-budget-mb " + mb + "; the config is unchanged)"));
      // the argv the engine gets: the config's args and the lowered budget
      List<String> expected =
          java.util.stream.Stream.concat(
                  stream.args().stream(), java.util.stream.Stream.of("--mem-budget-mb", "" + mb))
              .toList();
      assertEquals(expected, r.args());
      assertFalse(r.config().args().contains(EngineFlags.MEM_BUDGET_MB), "config unchanged");
      assertTrue(LaunchMemory.heldBytes(r.plan()) <= 7 * GIB);
      assertTrue(r.plan().arena().slots() < planned.arena().slots());
    }
  }

  @Test
  void aConfigsOwnBudgetIsReplacedNotRepeated() {
    try (Preflight.Report r = full(stream.plus("--mem-budget-mb", "12000"), now(8))) {
      assertFalse(r.refused(), lines(r).toString());
      List<String> args = r.args();
      assertEquals(1, args.stream().filter(EngineFlags.MEM_BUDGET_MB::equals).count(), "" + args);
      long mb = Long.parseLong(args.get(args.indexOf(EngineFlags.MEM_BUDGET_MB) + 1));
      assertTrue(mb < 12000, "" + mb);
      assertEquals(mb, r.plan().budgetBytes() >> 20);
    }
    assertEquals(
        List.of("--mem-budget-mb=5"),
        PreflightRun.withMemBudget(List.of("--mem-budget-mb=9000"), 5));
  }

  @Test
  void streamModeRefusesWhenNotEvenOneTokensExpertsFit() {
    try (Preflight.Report r = full(stream, now(2))) {
      String m = refusal(r);
      assertEquals("memory", r.checks().getLast().name());
      assertTrue(
          m.startsWith(
              "memory: 2.00 GiB available of 16.00 GiB (other processes hold 14.00 GiB), less the"
                  + " 1.00 GiB margin, is short of the "),
          m);
      assertTrue(m.contains(" with the smallest expert arena (one token's experts): "), m);
      assertTrue(m.endsWith(": close other work"), m);
      assertEquals(null, r.engine(), "the engine is not asked");
    }
  }

  @Test
  void residentModeIsRefusedNamingTheChangeThatFits() {
    // 16 GiB does not hold the demo resident; a 48 GiB machine does
    HostFacts here =
        new HostFacts("linux", "AMD EPYC 7B13", 2, 2, 0, 48L << 30, 0, false, false, "Debian", 0);
    Cfg resident =
        stream
            .args("--model", stream.shards().getFirst(), "--ctx", "4096", "--experts", "resident")
            .host(here);
    try (Preflight.Report r =
        Preflight.full(
            resident.config(),
            cfgPath,
            new Preflight.Here(here, new AvailableMemory(48 * GIB, 12 * GIB, "test")),
            Map.of())) {
      String m = refusal(r);
      assertTrue(m.contains(" this plan holds (experts resident): "), m);
      assertTrue(m.endsWith(": close other work, or rerun strata-setup with --experts stream"), m);
    }
  }

  @Test
  void planShowsTheSameVerdictAsAWarning() {
    Preflight.Report lowered =
        Preflight.forPlan(stream.config(), cfgPath, new Preflight.Here(LINUX, now(8)), Map.of());
    Preflight.Report full = full(stream, now(8));
    try (full) {
      assertEquals(full.plan(), lowered.plan(), "--plan shows the lowered plan");
      assertEquals(full.warnings().getFirst(), lowered.warnings().getFirst());
    }
    Preflight.Report refused =
        Preflight.forPlan(stream.config(), cfgPath, new Preflight.Here(LINUX, now(2)), Map.of());
    assertFalse(refused.refused());
    String launch;
    try (Preflight.Report r = full(stream, now(2))) {
      launch = r.refusal().getMessage();
    }
    assertEquals(launch, refused.warnings().getFirst().detail());
  }
}
