package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.kv.KvRules;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The demo model at 32K context through strata-launch and strata-ref: the pool sizes
 * docs/ENGINE-CONTRACT.md, KV formats pins, and the KV refusals before the engine runs.
 */
class KvFormatE2eTest {
  @RegisterExtension static final E2e.Demo demo = new E2e.Demo();

  /**
   * A short workload: the pools are allocated for the whole context, the work is small (one decode
   * step: each streams a token's 480 experts of 811,008 B through strata-ref's arena).
   */
  static final List<String> SHORT = List.of("--prompt-tokens", "16", "--n-predict", "1");

  private static Path config(String name, List<String> extra, Map<String, String> env)
      throws IOException {
    List<String> args = new java.util.ArrayList<>(SHORT);
    args.addAll(extra);
    return demo.config(name, 32_768, args, env);
  }

  /** strata-launch of {@link #config}. */
  private static E2e.Result launch(String name, List<String> extra, Map<String, String> env)
      throws IOException {
    return E2e.launch("--config", config(name, extra, env).toString());
  }

  @Test
  void theDefaultPathAllocatesInt8PoolsOf416858112Bytes() throws IOException {
    E2e.Result r = launch("int8.yaml", List.of(), Map.of());
    assertEquals(0, r.code(), r.err());
    assertTrue(
        r.out()
            .lines()
            .anyMatch(
                "kv: format=int8 cell_bytes=1056 layers=12 cells=32896 bytes=416858112"::equals),
        r.out());
    assertTrue(r.out().lines().anyMatch(l -> l.startsWith("decode: tokens=1 ")), r.out());
  }

  @Test
  void q4_0AllocatesPoolsOf227377152Bytes() throws IOException {
    E2e.Result r = launch("q4.yaml", List.of("--kv", "q4_0"), Map.of());
    assertEquals(0, r.code(), r.err());
    assertTrue(
        r.out()
            .lines()
            .anyMatch(
                "kv: format=q4_0 cell_bytes=576 layers=12 cells=32896 bytes=227377152"::equals),
        r.out());
  }

  @Test
  void k8v4IsRefusedWithTheUpstreamTextBeforeTheEngineRuns() throws IOException {
    E2e.Result r = launch("k8v4.yaml", List.of("--kv", "k8v4"), Map.of());
    assertEquals(3, r.code());
    assertEquals(KvRules.K8V4_REFUSAL, r.oneLineRefusal());
    assertEquals(
        "metal window: --kv k8v4 is not implemented on Metal (use fp16, int8 or q4_0)",
        KvRules.K8V4_REFUSAL);
    assertFalse(r.out().contains("kv: format="), "the engine never ran: " + r.out());
    assertFalse(r.out().contains("starting"), "the engine never ran: " + r.out());
  }

  @Test
  void kvRotWithInt8IsRefusedBeforeTheEngineRuns() throws IOException {
    E2e.Result r = launch("rot.yaml", List.of("--kv", "int8"), Map.of(KvRules.KV_ROT_ENV, "1"));
    assertEquals(3, r.code());
    assertEquals(KvRules.KV_ROT_INT8_REFUSAL, r.oneLineRefusal());
    assertFalse(r.out().contains("kv: format="), r.out());
  }

  @Test
  void kvRotNextToQ4_0IsANoOpAndRuns() throws IOException {
    E2e.Result r = launch("rotq4.yaml", List.of("--kv", "q4_0"), Map.of(KvRules.KV_ROT_ENV, "1"));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("kv: format=q4_0 cell_bytes=576"), r.out());
  }
}
