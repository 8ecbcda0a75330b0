package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.mac;
import static dev.strata.engine.plan.Fixtures.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.Backend;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ExpertsMode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanRequestTest {

  /** The defaults are the engine's for an absent flag: the table of docs/FLAGS.md. */
  @Test
  void aNewRequestPlansTheEngineRunWithModelAlone() {
    PlanRequest r = PlanRequest.of(mac(48), seed(), Backend.METAL);
    assertEquals(4_096, r.context()); // --ctx 4096
    assertEquals(ExpertsMode.STREAM, r.experts()); // --experts stream
    assertEquals(0, r.memBudgetMb()); // --mem-budget-mb 0 = the plan's
    assertEquals(0, r.spec()); // --spec 0 = off
    assertEquals(Map.of(), r.env());
    assertEquals(List.of(), r.kvNotes());
    // no --kv: int8 pools on Metal and strata-ref, fp16 on the PC engine
    // (docs/ENGINE-CONTRACT.md, KV formats)
    assertEquals(KvFormat.INT8, r.pools());
    assertEquals(KvFormat.INT8, PlanRequest.of(mac(48), seed(), Backend.CPU_REFERENCE).pools());
    assertEquals(KvFormat.FP16, PlanRequest.of(mac(48), seed(), Backend.PC).pools());
  }

  @Test
  void theDefaultRequestSizesTheKvAt4096TokensOfInt8() {
    MemoryPlan p = MemoryPlan.compute(PlanRequest.of(mac(48), seed(), Backend.METAL));
    // 4096 + 128 cells × 12 QSA layers × 1,056 B: int8 holds a head vector in 256 codes + 4 fp16
    // scales = 264 B, × 2 KV heads × (K, V) (docs/ENGINE-CONTRACT.md, KV formats)
    assertEquals(4_224, p.kv().cells());
    assertEquals(4_224L * 1_056 * 12, p.kv().bytes());
    assertEquals(53_526_528L, p.kv().bytes());
    assertEquals(ExpertsMode.STREAM, p.experts());
  }

  @Test
  void eachWitherChangesItsFieldAlone() {
    PlanRequest r = PlanRequest.of(mac(48), seed(), Backend.METAL);
    Map<String, String> env = Map.of("STRATA_METAL_PROMPT_GEMM", "0");
    assertEquals(
        new PlanRequest(
            r.host(),
            r.model(),
            Backend.METAL,
            65_536,
            ExpertsMode.RESIDENT,
            KvFormat.Q4_0,
            List.of(),
            env,
            30_000,
            2,
            null,
            3),
        r.withContext(65_536)
            .withExperts(ExpertsMode.RESIDENT)
            .withPools(KvFormat.Q4_0)
            .withEnv(env)
            .withMemBudgetMb(30_000)
            .withSpec(2)
            .withParallel(3));
  }

  @Test
  void aKvDecisionBringsItsPoolsAndNotesAndBarePoolsDropThem() {
    KvDecision.Accepted fp16 =
        KvRules.decide(Backend.METAL, KvFormat.FP16, Map.of())
            .acceptedOr(IllegalStateException::new);
    PlanRequest r = PlanRequest.of(mac(48), seed(), Backend.METAL).withKv(fp16);
    assertEquals(KvFormat.INT8, r.pools());
    assertEquals(List.of(KvRules.FP16_ON_METAL_NOTE), r.kvNotes());
    assertEquals(List.of(), r.withPools(KvFormat.Q4_0).kvNotes());
    // the notes come first in the plan
    assertEquals(KvRules.FP16_ON_METAL_NOTE, MemoryPlan.compute(r).notes().getFirst());
  }

  @Test
  void theEnvironmentIsCopied() {
    Map<String, String> env = new HashMap<>();
    env.put("STRATA_METAL_PROMPT_GEMM", "0");
    PlanRequest r = PlanRequest.of(mac(48), seed(), Backend.METAL).withEnv(env);
    env.put("STRATA_METAL_PROMPT_GEMM", "1");
    assertEquals(Map.of("STRATA_METAL_PROMPT_GEMM", "0"), r.env());
    assertThrows(UnsupportedOperationException.class, () -> r.env().put("A", "1"));
  }

  @Test
  void aContextBelowOneIsRefusedWhenPlanned() {
    PlanRequest r = PlanRequest.of(mac(48), seed(), Backend.METAL).withContext(0);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> MemoryPlan.compute(r));
    assertEquals("context must be at least 1, got 0", e.getMessage());
  }
}
