package dev.strata.engine.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PipelineKeysTest {

  private static List<String> texts(List<PipelineKeys.Key> keys) {
    return keys.stream().map(PipelineKeys.Key::text).toList();
  }

  /** The seed's five-key check: with q4_0 off, the QSA keys are the pre-q4 ones, byte for byte. */
  @Test
  void fiveQsaKeysWithQ4OffArePinned() {
    List<String> golden =
        List.of(
            "qsa_kv_append",
            "qsa_decode_attn",
            "qsa_prompt_kv_append",
            "qsa_prompt_gemm",
            "qsa_prompt_flash");
    assertEquals(golden, texts(PipelineKeys.qsaKeys(KvFormat.INT8, false)));
    assertEquals(
        List.of(
            "qsa_kv_append",
            "qsa_decode_attn",
            "qsa_prompt_kv_append",
            "qsa_prompt_gemm",
            "qsa_prompt_flash",
            "kv_encode",
            "kv_decode"),
        texts(PipelineKeys.keys(KvFormat.INT8, false)));
    // fp16 runs on the int8 pools on Metal: the same keys
    KvDecision.Accepted fp16 =
        (KvDecision.Accepted) KvRules.decide(Backend.METAL, KvFormat.FP16, Map.of());
    assertEquals(golden, texts(PipelineKeys.qsaKeys(fp16.pools(), false)));
  }

  @Test
  void q4RunsGetTheirOwnKeysAtEverySite() {
    List<PipelineKeys.Key> q4 = PipelineKeys.keys(KvFormat.Q4_0, false);
    List<PipelineKeys.Key> int8 = PipelineKeys.keys(KvFormat.INT8, false);
    assertEquals("qsa_decode_attn#fc25=1", q4.get(1).text());
    assertEquals("kv_encode#fc25=1", q4.get(5).text());
    Set<String> all = new HashSet<>(texts(q4));
    all.addAll(texts(int8));
    assertEquals(2 * PipelineKeys.Site.values().length, all.size());
    for (PipelineKeys.Key k : q4) {
      assertEquals(1, k.constants().get(25), k.text() + " binds kv_q4 = 1 in its Constants set");
    }
    assertEquals(
        "qsa_prompt_gemm#fc7=1#fc25=1", PipelineKeys.keys(KvFormat.Q4_0, true).get(3).text());
  }

  @Test
  void everySiteBindsKvQ4() {
    for (PipelineKeys.Site s : PipelineKeys.Site.values()) {
      assertTrue(s.binds().contains(PipelineKeys.FunctionConstant.KV_Q4), s.name());
    }
    assertEquals(5, PipelineKeys.Site.values().length - 2, "five QSA sites plus encode and decode");
  }

  /**
   * The counterfactual: a key without fc 25 (the pre-q4 key function) maps a q4 specialization and
   * an int8 one to the same text, so a cache keyed by it hands a q4_0 run the int8 pipeline.
   */
  @Test
  void aKeyWithoutFc25WouldCollide() {
    Map<String, Map<Integer, Integer>> cache = new HashMap<>();
    int collisions = 0;
    for (KvFormat pools : List.of(KvFormat.INT8, KvFormat.Q4_0)) {
      for (PipelineKeys.Key k : PipelineKeys.keys(pools, false)) {
        Map<Integer, Integer> withoutFc25 = new HashMap<>(k.constants());
        withoutFc25.remove(25);
        String stale = new PipelineKeys.Key(k.site(), withoutFc25).text();
        Map<Integer, Integer> cached = cache.putIfAbsent(stale, k.constants());
        if (cached != null && !cached.equals(k.constants())) {
          collisions++;
        }
      }
    }
    assertEquals(PipelineKeys.Site.values().length, collisions, "every q4 key hits an int8 entry");
    // and the real keys never collide
    Map<String, Map<Integer, Integer>> real = new HashMap<>();
    for (KvFormat pools : List.of(KvFormat.INT8, KvFormat.Q4_0)) {
      for (boolean k4 : new boolean[] {false, true}) {
        for (PipelineKeys.Key k : PipelineKeys.keys(pools, k4)) {
          Map<Integer, Integer> prev = real.putIfAbsent(k.text(), k.constants());
          assertTrue(prev == null || prev.equals(k.constants()), k.text());
        }
      }
    }
    // 2 formats × (5 sites without fc 7 + 2 prompt sites × k4 on/off)
    assertEquals(18, real.size());
  }

  @Test
  void k8v4HasNoKeys() {
    assertThrows(IllegalArgumentException.class, () -> PipelineKeys.keys(KvFormat.K8V4, false));
  }

  /**
   * The KV kernels' sites bind kv_q4 under the name and index their .metal source declares
   * (kernels/src/main/metal/kv_kernels.metal): a key built for another index would specialize
   * nothing.
   */
  @Test
  void theKvKernelsDeclareTheConstantTheirKeysBind() throws java.io.IOException {
    String metal =
        java.nio.file.Files.readString(
            dev.strata.testsupport.RepoRoot.resolve("kernels/src/main/metal/kv_kernels.metal"));
    PipelineKeys.FunctionConstant q4 = PipelineKeys.FunctionConstant.KV_Q4;
    assertTrue(
        metal.contains(
            "constant bool " + q4.mslName() + " [[function_constant(" + q4.index() + ")]];"),
        "kv_kernels.metal declares " + q4.mslName() + " at " + q4.index());
    for (PipelineKeys.Site s : PipelineKeys.Site.values()) {
      boolean kernel = s.chain() == PipelineKeys.Chain.KV_KERNELS;
      assertEquals(kernel, metal.contains("kernel void " + s.function() + "("), s.function());
    }
  }
}
