package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.linux;
import static dev.strata.engine.plan.Fixtures.mac;
import static dev.strata.engine.plan.Fixtures.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ModelGeometry;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A KV format that cannot hold a model's heads is a refusal naming what the model can use
 * (docs/ENGINE-CONTRACT.md, KV formats: int8 needs head_dim a multiple of 64, q4_0 exactly 256,
 * fp16 any), and the KV pools' figures: (context + 128) cells × cell bytes per pool.
 */
class KvPlanRulesTest {

  private static String refusal(HostFacts host, ModelGeometry m, Backend b, KvFormat pools) {
    return MemoryPlan.compute(PlanRequest.of(host, m, b).withContext(32_768).withPools(pools))
        .refusal();
  }

  @Test
  void headsNoMetalFormatHoldsSendTheUserToThePcEngine() {
    assertEquals(
        "kv: int8 pools cannot hold this qwen3next model's head_dim 80 (int8 needs head_dim a"
            + " multiple of 64, got 80); no KV format of the metal engine holds it (int8 needs a"
            + " multiple of 64, q4_0 exactly 256); the pc engine runs it with --kv fp16",
        refusal(mac(48), Fixtures.withHeadDim(80), Backend.METAL, KvFormat.INT8));
  }

  @Test
  void differentKAndVHeadsAreBothNamed() {
    assertEquals(
        "kv: q4_0 pools cannot hold this qwen3next model's K head_dim 192, V head_dim 128 (q4_0"
            + " needs head_dim 256 (FWHT-256), got 192); use --kv int8",
        refusal(mac(48), Fixtures.withHeadDims(192, 128), Backend.METAL, KvFormat.Q4_0));
  }

  /** On the PC engine every format is a pool format: it names those that hold the heads. */
  @Test
  void thePcEngineNamesItsOwnFormats() {
    assertEquals(
        "kv: q4_0 pools cannot hold this qwen3next model's head_dim 128 (q4_0 needs head_dim 256"
            + " (FWHT-256), got 128); use --kv fp16 or --kv int8",
        refusal(linux(48), Fixtures.withHeadDim(128), Backend.PC, KvFormat.Q4_0));
    assertEquals(null, refusal(linux(48), Fixtures.withHeadDim(128), Backend.PC, KvFormat.FP16));
  }

  /**
   * Issue 28: pools that cannot hold the heads are the KV format's refusal, not memory's (setup
   * exits 2 for it, docs/SETUP.md); a plan short of memory is not, and a plan that fits neither.
   */
  @Test
  void onlyTheFormatsRefusalIsAKvFormatRefusal() {
    MemoryPlan cannotHold =
        MemoryPlan.compute(
            PlanRequest.of(mac(48), Fixtures.withHeadDim(96), Backend.METAL)
                .withContext(32_768)
                .withPools(KvFormat.INT8));
    assertTrue(cannotHold.kvFormatRefused(), cannotHold.refusal());
    MemoryPlan shortOfMemory =
        MemoryPlan.compute(
            PlanRequest.of(mac(8), seed(), Backend.METAL)
                .withContext(262_144)
                .withExperts(dev.strata.engine.model.ExpertsMode.RESIDENT));
    assertTrue(!shortOfMemory.fits() && !shortOfMemory.kvFormatRefused(), shortOfMemory.refusal());
    MemoryPlan fits =
        MemoryPlan.compute(PlanRequest.of(mac(48), seed(), Backend.METAL).withContext(8_192));
    assertTrue(fits.fits() && !fits.kvFormatRefused());
  }

  /**
   * strata-ref's own limits (RefLimits: head_dim up to 256, at most 64 KV heads) refuse on
   * cpu-reference whatever the format, and send the user to the pc engine; the same heads plan on
   * the pc engine. RulesParityTest holds strata-ref's words to these.
   */
  @Test
  void strataRefsLimitsAreACpuReferenceRefusal() {
    assertEquals(
        "kv: fp16 pools cannot hold this qwen3next model's head_dim 512 (strata-ref holds"
            + " head_dim up to 256 and at most 64 KV heads; the model has 2 KV heads); no KV format"
            + " of the cpu-reference engine holds it; the pc engine runs it with --kv fp16, int8",
        refusal(linux(48), Fixtures.withHeadDim(512), Backend.CPU_REFERENCE, KvFormat.FP16));
    assertEquals(null, refusal(linux(48), Fixtures.withHeadDim(512), Backend.PC, KvFormat.FP16));
    // within the limits the format's own rule, and the formats strata-ref has
    assertEquals(
        "kv: q4_0 pools cannot hold this qwen3next model's head_dim 128 (q4_0 needs head_dim 256"
            + " (FWHT-256), got 128); use --kv fp16 or --kv int8",
        refusal(linux(48), Fixtures.withHeadDim(128), Backend.CPU_REFERENCE, KvFormat.Q4_0));
  }

  /** A head of no values (which the GGUF reader refuses first) fits no format at all. */
  @Test
  void noHeadAtAllFitsNoEngine() {
    String r = refusal(mac(48), Fixtures.withHeadDim(0), Backend.METAL, KvFormat.INT8);
    assertTrue(r.endsWith("; no KV format of any Strata engine holds it"), r);
  }

  @Test
  void poolsWithoutTheDrafterByDefault() {
    assertEquals(
        new KvPools(KvFormat.INT8, 32_896, 1_056, 12, 416_858_112L, 0, 0, 0, 1),
        KvPools.of(KvFormat.INT8, seed(), 32_768));
    // q4_0: 2 heads × (K + V) × 144 B per 256 values = 576 B per cell
    assertEquals(32_896L * 576 * 12, KvPools.of(KvFormat.Q4_0, seed(), 32_768).bytes());
  }

  @Test
  void oneMoreTokenCostsACellInEveryFullPoolAndTheDrafters() {
    ModelGeometry drafter = Fixtures.withDrafter(1);
    assertEquals(1_056 * 12, KvPools.of(KvFormat.INT8, drafter, 32_768, 0).bytesPerToken());
    assertEquals(1_056 * 13, KvPools.of(KvFormat.INT8, drafter, 32_768, 1).bytesPerToken());
  }

  /** No arena slot won is said as "+0", like any other gain. */
  @Test
  void noSlotsWonIsPlusZero() {
    assertEquals(
        "32768: int8 0.39 GiB, q4_0 0.21 GiB; q4_0 saves 0.18 GiB (189,480,960 B), +0 arena"
            + " slots",
        KvComparison.at(mac(128), seed(), 32_768, Backend.METAL, Map.of()).summary());
  }
}
