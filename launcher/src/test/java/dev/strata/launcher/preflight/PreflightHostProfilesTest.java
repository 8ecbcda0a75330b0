package dev.strata.launcher.preflight;

import static dev.strata.launcher.preflight.PreflightFixture.lines;
import static dev.strata.launcher.preflight.PreflightFixture.profile;
import static dev.strata.launcher.preflight.PreflightFixture.refusal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.model.DemoModel;
import dev.strata.engine.model.TinyModel;
import dev.strata.engine.plan.PlanItems;
import dev.strata.launcher.preflight.PreflightFixture.Cfg;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed model's cpu-reference config checked for every host profile (templates/hosts), as {@code
 * strata-launch --dry-run --host-file NAME} does: the plan's verdict per Mac, the refusal naming
 * the Mac and the remedy, {@code --plan} showing what a launch refuses. strata-ref does not compute
 * the seed geometry ({@link DemoModel}, qwen3next: a planning model it refuses), so the engine
 * answers for itself on {@link TinyModel#seedAttention} (the seed's 12 attention layers of 2 × 256:
 * its KV pools to the byte): its own plan items agree with the launcher's where they do not depend
 * on the machine the engine runs on (the KV pools and the recurrent state).
 */
@DisabledOnOs(OS.WINDOWS)
class PreflightHostProfilesTest {
  @TempDir static Path dir;
  static Cfg demo;
  static Cfg computed;
  static final Path CFG = Path.of("/nonexistent-strata/engine.yaml");

  @BeforeAll
  static void demoModel() throws IOException {
    demo = Cfg.of(DemoModel.write(dir.resolve("model"), 1));
    computed = Cfg.of(TinyModel.seedAttention().write(dir.resolve("computed"), "seed", 1, 3));
  }

  /**
   * The seed model at its full trained context (262,144) fits every profile but the 8 GiB M1: the
   * expected verdicts are the profiles' (index.txt), the remedies the plan's own (the launcher's
   * rules: the library is not pinned, so the dry run loads nothing). Where it fits, strata-ref
   * checks the same launch on the computed model of the seed's attention.
   */
  @Test
  void theFullContextFitsEveryMacButTheSmallestWhichIsToldTheContextThatFits() {
    List<String> names = HostProfiles.list().stream().map(HostProfiles.Profile::name).toList();
    assertEquals(9, names.size(), "templates/hosts/index.txt");
    for (String kv : new String[] {"int8", "q4_0"}) {
      Cfg c = demo.args("--model", demo.shards().getFirst(), "--ctx", "262144", "--kv", kv);
      Cfg e = computed.args("--model", computed.shards().getFirst(), "--ctx", "262144", "--kv", kv);
      for (String name : names) {
        HostFacts mac = profile(name);
        try (Preflight.Report r =
            Preflight.forDryRun(c.host(mac).config(), CFG, asHostFile(mac), Map.of())) {
          if (name.equals("m1-8")) {
            String m = refusal(r);
            assertEquals(r.plan().refusal() + " (planned for the Apple M1)", m);
            assertTrue(
                m.contains(
                    kv.equals("int8") ? "(--ctx 138240 fits) or --kv q4_0" : "(--ctx 253952 fits)"),
                m);
            assertNull(r.engine(), "the engine is not asked after a refusal");
            assertNull(r.verified());
          } else {
            assertEquals("plan OK fits this machine", lines(r).get(5), name);
            assertEquals(
                "host OK this machine is the config's host (" + mac.chip() + ")",
                lines(r).get(4),
                name);
            assertFalse(r.refused(), () -> name + ": " + lines(r));
            try (Preflight.Report er = Preflight.full(e.host(mac).config(), CFG, mac, Map.of())) {
              assertEngineAgreesOrRefusesForThisMachine(er, name);
            }
          }
        }
      }
    }
  }

  /** --plan shows the plan the launch refuses, as a warning without the Mac's name appended. */
  @Test
  void planShowsWhatALaunchRefuses() {
    HostFacts m1 = profile("m1-8");
    Cfg c = demo.args("--model", demo.shards().getFirst(), "--ctx", "262144");
    try (Preflight.Report r = Preflight.forPlan(c.host(m1).config(), CFG, m1, Map.of())) {
      assertFalse(r.refused());
      assertFalse(r.plan().fits());
      assertEquals("plan WARN " + r.plan().refusal(), lines(r).get(4));
      assertTrue(r.warnings().contains(r.checks().get(4)));
    }
  }

  /** At a small context every Mac fits the seed model, and strata-ref agrees. */
  @Test
  void aSmallContextFitsEveryMac() {
    for (HostProfiles.Profile p : HostProfiles.list()) {
      HostFacts mac = profile(p.name());
      try (Preflight.Report r =
          Preflight.forDryRun(
              demo.plus("--kv", "q4_0").host(mac).config(), CFG, asHostFile(mac), Map.of())) {
        assertFalse(r.refused(), () -> p.name() + ": " + lines(r));
      }
      try (Preflight.Report r =
          Preflight.full(computed.plus("--kv", "q4_0").host(mac).config(), CFG, mac, Map.of())) {
        assertFalse(r.refused(), () -> p.name() + ": " + lines(r));
        assertEngineAgrees(r, p.name());
      }
    }
  }

  /** A profile as {@code --host-file} gives it: not this machine, so no memory available now. */
  static Preflight.Here asHostFile(HostFacts mac) {
    return new Preflight.Here(mac, null);
  }

  /**
   * {@link #assertEngineAgrees}, unless this machine is too small for the launch the profile's Mac
   * can take: strata-ref sizes its plan by the memory of the machine it runs on (engine/native/src/
   * engine.c startup_rules), as {@code --dry-run --host-file} on a small machine would show; then
   * the launch is refused with the engine's own memory line.
   */
  static void assertEngineAgreesOrRefusesForThisMachine(Preflight.Report r, String name) {
    Preflight.EngineVerdict v = r.engine();
    if (v.code() == 0) {
      assertFalse(r.refused(), () -> name + ": " + lines(r));
      assertEngineAgrees(r, name);
      return;
    }
    assertEquals(
        v.name()
            + " refuses this launch (strata_engine_check returned "
            + v.code()
            + "): "
            + v.firstError(),
        refusal(r),
        name);
    assertTrue(
        v.firstError().contains("GiB"), () -> name + ": a memory refusal: " + v.firstError());
  }

  /**
   * strata-ref's verdict and its {@code plan:} lines: it accepted, and its KV and recurrent-state
   * items are the launcher's byte for byte (docs/LAUNCH.md "One truth"; the arena's depends on this
   * machine's memory, which the engine reads itself).
   */
  static void assertEngineAgrees(Preflight.Report r, String name) {
    Preflight.EngineVerdict v = r.engine();
    assertTrue(v.checked(), name);
    assertEquals(NativeEngine.ABI_VERSION, v.abi(), name);
    assertEquals(0, v.code(), name);
    assertNull(v.firstError(), name);
    assertFalse(v.planLines().isEmpty(), name);
    for (String line : v.planLines()) {
      assertTrue(line.startsWith(PlanItems.PREFIX), name + ": only plan items: " + line);
    }
    Map<String, String> engine = PlanItems.byName(v.planLines());
    Map<String, String> launcher = PlanItems.byName(PlanItems.lines(r.plan()));
    for (String item : List.of("kv", "ssm_state")) {
      assertEquals(launcher.get(item), engine.get(item), name + ": " + item);
    }
    assertTrue(engine.get("kv") != null, name + ": the engine plans its KV pools");
  }
}
