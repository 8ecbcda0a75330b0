package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.GIB;
import static dev.strata.engine.plan.Fixtures.linux;
import static dev.strata.engine.plan.Fixtures.mac;
import static dev.strata.engine.plan.Fixtures.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PlanDefaultsTest {
  private static PlanDefaults defaults(HostFacts host) {
    return PlanDefaults.compute(host, seed(), Backend.METAL, Map.of());
  }

  /** The Metal plan of the seed model at 256K tokens. */
  private static MemoryPlan metalAt256k(HostFacts host, ExpertsMode experts, KvFormat kv) {
    return MemoryPlan.compute(
        PlanRequest.of(host, seed(), Backend.METAL)
            .withContext(262_144)
            .withExperts(experts)
            .withPools(kv));
  }

  /** The matrix Macs: memory, then the planned context, experts and budget (10 threads, int8). */
  @ParameterizedTest(name = "{0} GiB: ctx {1}, {2}, budget {3} MB")
  @CsvSource({
    "16, 131072, STREAM, 9898",
    "24, 262144, STREAM, 15360",
    "48, 262144, RESIDENT, 35840",
    "128, 262144, RESIDENT, 97280"
  })
  void seedDefaultsOnTheMatrixHosts(long gib, long ctx, ExpertsMode experts, long budgetMb) {
    assertEquals(
        new PlanDefaults(ctx, experts, 10, budgetMb, KvFormat.INT8, true), defaults(mac(gib)));
  }

  @Test
  void contextIsTheLargestStandardSizeThatFitsWithMargin() {
    // 16 GiB: 256K int8 pools (3.10 GiB) exceed a quarter of the 9.67 GiB budget, 128K do not.
    MemoryPlan at256k = metalAt256k(mac(16), ExpertsMode.STREAM, KvFormat.INT8);
    assertTrue(at256k.fits(), "it fits, just not with margin");
    assertFalse(PlanDefaults.streamFitsWithMargin(at256k));
    assertEquals(131_072, defaults(mac(16)).context());
  }

  @Test
  void defaultsNeverDependOnTheKvFormat() {
    // Counterfactual: had the defaults planned with q4_0 pools, the 16 GiB context would move to
    // 256K. They plan with the default path's pools, so a --kv q4_0 answer cannot move them.
    MemoryPlan q4At256k = metalAt256k(mac(16), ExpertsMode.STREAM, KvFormat.Q4_0);
    assertTrue(PlanDefaults.streamFitsWithMargin(q4At256k));
    assertEquals(131_072, defaults(mac(16)).context());
    assertEquals(KvFormat.INT8, defaults(mac(16)).pools());

    // No entry point takes a KV format or decision.
    for (Method m : PlanDefaults.class.getDeclaredMethods()) {
      if (m.getName().equals("compute")) {
        assertFalse(
            Arrays.asList(m.getParameterTypes()).contains(KvFormat.class)
                || Arrays.stream(m.getParameterTypes())
                    .anyMatch(KvDecision.class::isAssignableFrom),
            m.toString());
      }
    }
    // STRATA_KV_ROT is a no-op next to no --kv: it moves nothing either.
    for (long gib : new long[] {16, 24, 48, 128}) {
      assertEquals(
          defaults(mac(gib)),
          PlanDefaults.compute(mac(gib), seed(), Backend.METAL, Map.of("STRATA_KV_ROT", "1")));
    }
  }

  @Test
  void contextIsCappedByTheTrainedContext() {
    assertEquals(
        32_768,
        PlanDefaults.compute(mac(128), Fixtures.withTrainedContext(40_960), Backend.METAL, Map.of())
            .context());
    assertEquals(
        2_048,
        PlanDefaults.compute(mac(128), Fixtures.withTrainedContext(2_048), Backend.METAL, Map.of())
            .context());
  }

  @Test
  void nothingFitsGivesTheSmallestContextAndSaysSo() {
    ModelGeometry huge = Fixtures.huge();
    PlanDefaults d = PlanDefaults.compute(mac(16), huge, Backend.METAL, Map.of());
    assertFalse(d.contextFits());
    assertEquals(4_096, d.context());
    assertEquals(ExpertsMode.STREAM, d.experts());
  }

  @Test
  void threadsArePerformanceCoresAtLeastOne() {
    assertEquals(10, defaults(mac(48)).threads());
    assertEquals(
        8, PlanDefaults.compute(linux(64), seed(), Backend.CPU_REFERENCE, Map.of()).threads());
    HostFacts bare = new HostFacts("linux", "x", 0, 0, 0, 64 * GIB, 0, false, false, "Linux", 0);
    assertEquals(1, PlanDefaults.compute(bare, seed(), Backend.CPU_REFERENCE, Map.of()).threads());
  }

  @Test
  void memoryBudgetIsUsableMinusMarginInWholeMib() {
    // 16 GiB Mac: (11,453,246,122 - 1,073,741,824) / 1,048,576 = 9,898.67
    assertEquals(9_898, defaults(mac(16)).memBudgetMb());
    assertEquals(13 * 1_024, defaults(mac(16, 14_336, false)).memBudgetMb());
    assertEquals(
        63 * 1_024,
        PlanDefaults.compute(linux(64), seed(), Backend.CPU_REFERENCE, Map.of()).memBudgetMb());
  }

  @Test
  void residentNeedsTenPercentOfUsableLeft() {
    // 48 GiB at 256K: 24.16 GiB resident in a 35 GiB budget leaves 10.84 GiB >= 3.6 GiB.
    MemoryPlan r = metalAt256k(mac(48), ExpertsMode.RESIDENT, KvFormat.INT8);
    assertTrue(PlanDefaults.residentFitsWithMargin(r));
    // a wired limit that leaves it fitting but with under 10% free turns the default to stream
    long need = r.denseBytes() + r.kv().bytes() + r.arena().bytes();
    long limitMb = (need + GIB) / (1L << 20) + 1; // fits by under 1 MiB
    PlanDefaults tight =
        PlanDefaults.compute(mac(48, limitMb, false), seed(), Backend.METAL, Map.of());
    assertEquals(262_144, tight.context());
    MemoryPlan tightResident =
        metalAt256k(mac(48, limitMb, false), ExpertsMode.RESIDENT, KvFormat.INT8);
    assertTrue(tightResident.fits(), "it fits, just not with margin");
    assertEquals(ExpertsMode.STREAM, tight.experts());
  }
}
