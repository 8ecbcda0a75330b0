package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.model.TinyModel;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules strata-ref takes from the Java tables (rules.def, {@code RulesDef}), asked of the
 * compiled engine and compared with the Java answer for the same input: the KV decision under every
 * reading of {@code STRATA_KV_ROT}, the pools' extra cells, and the words of a refused plan. A C
 * side that kept its own copy of any of them, and drifted, fails here.
 */
class RulesParityTest {
  @TempDir static Path dir;

  /** A qwen3moe strata-ref computes, and one of 12 attention layers (TinyModel). */
  static Path model;

  static Path wide;
  static ModelGeometry geometry;
  static NativeEngine engine;

  @BeforeAll
  static void load() throws Exception {
    model = TinyModel.moe().write(dir, "m", 1, 3).getFirst();
    engine = NativeEngine.load(NativeEngine.defaultLibrary(NativeEngineTest.ROOT));
    // 12 attention layers of the seed's KV heads: pools large enough to crowd out the stream arena
    wide = TinyModel.seedAttention().write(dir, "w", 1, 3).getFirst();
    geometry = GgufReader.readModel(wide).geometry();
  }

  @AfterAll
  static void close() {
    engine.close();
  }

  private static NativeEngineTest.Lines check(String... args) {
    return check(model, args);
  }

  private static NativeEngineTest.Lines check(Path m, String... args) {
    return RefCalls.call(engine, true, m, args);
  }

  /**
   * Values of the switch as a config may write them: C atoi's blanks, signs, leading zeros, a
   * trailing word, no digits, a blank atoi does not skip (U+001C), digits past a long.
   */
  static final List<String> SWITCH_VALUES =
      List.of(
          "1",
          "0",
          "00",
          "007",
          " 1",
          "\t+2",
          "\u000B3",
          "\f\r\n4",
          "-0",
          "-5",
          "+",
          "",
          "x1",
          "1x",
          "0x1",
          "\u001C1",
          "99999999999999999999999");

  @Test
  void theKvDecisionUnderEveryReadingOfTheSwitch() {
    int checked = 0;
    for (String rot : SWITCH_VALUES) {
      engine.setEnv(KvRules.KV_ROT_ENV, rot);
      try {
        List<KvFormat> requested = new ArrayList<>(List.of(KvFormat.values()));
        requested.add(null); // no --kv
        for (KvFormat f : requested) {
          KvDecision java =
              KvRules.decide(Backend.CPU_REFERENCE, f, Map.of(KvRules.KV_ROT_ENV, rot));
          NativeEngineTest.Lines l = f == null ? check() : check("--kv", f.flagName());
          String where =
              (f == null ? "no --kv" : "--kv " + f.flagName())
                  + " STRATA_KV_ROT='"
                  + rot
                  + "': "
                  + l.lines;
          if (java instanceof KvDecision.Refused r) {
            assertTrue(l.has(r.message()), where);
            assertTrue(l.has("rc=" + ExitCodes.PREFLIGHT), where);
          } else {
            KvFormat pools = ((KvDecision.Accepted) java).pools();
            assertTrue(
                l.startingWith("kv: format=").startsWith("kv: format=" + pools.flagName() + " "),
                where);
          }
          checked++;
        }
      } finally {
        engine.unsetEnv(KvRules.KV_ROT_ENV);
      }
    }
    assertEquals(SWITCH_VALUES.size() * (KvFormat.values().length + 1), checked);
  }

  @Test
  void thePoolsHoldTheContextAndTheExtraCells() {
    for (String ctx : List.of("1", "300", "4096")) {
      NativeEngineTest.Lines l = check("--ctx", ctx, "--prompt-tokens", "1", "--n-predict", "0");
      assertTrue(
          l.startingWith("kv: format=")
              .contains(" cells=" + KvFormat.cells(Long.parseLong(ctx)) + " "),
          l.lines::toString);
    }
    // the workload bound, in PoolRule's words after "flags: "
    NativeEngineTest.Lines l = check("--ctx", "10", "--prompt-tokens", "512", "--n-predict", "64");
    assertTrue(
        l.has(
            "flags: --prompt-tokens 512 + --n-predict 64 exceed the pool's "
                + KvFormat.cells(10)
                + " cells (--ctx 10 + "
                + KvFormat.EXTRA_CELLS
                + "): lower them, or raise --ctx"),
        l.lines::toString);
    // a flag rule, so it wins over the KV decision as in Java (the config reader checks it first)
    NativeEngineTest.Lines both =
        check("--kv", "k8v4", "--ctx", "10", "--prompt-tokens", "512", "--n-predict", "64");
    assertTrue(both.has("rc=" + ExitCodes.USAGE), both.lines::toString);
    assertTrue(!both.has(KvRules.K8V4_REFUSAL), both.lines::toString);
  }

  /** The machine's memory as the engine measured it (its {@code memory: total=} line). */
  private static long engineTotal(NativeEngineTest.Lines l) {
    String m = l.startingWith("memory: total=");
    assertTrue(m.startsWith("memory: total="), l.lines::toString);
    int from = "memory: total=".length();
    return Long.parseLong(m.substring(from, m.indexOf(" ", from)));
  }

  /**
   * A refused plan says the same words in both engines: stream and resident, a budget that a
   * smaller context fits and one nothing fits, so every template and term of PlanWords is filled
   * once by each side.
   */
  @Test
  void aRefusedPlanHasTheJavaPlansWords() {
    long total = engineTotal(check());
    HostFacts host = new HostFacts("linux", "x86_64", 8, 0, 0, total, 0, false, false, "Linux", 0);
    long headroomMb = Math.max(2L << 30, total / 8) >> 20;
    // a context whose int8 pools outweigh the headroom by 256 MiB: stream mode then cannot hold
    // every expert, and a budget of headroom + 64 MiB leaves room for a smaller context only
    long perToken =
        KvFormat.INT8.cellBytes(geometry.kvHeads(), geometry.headDim()) * geometry.qsaLayerCount();
    long crowded = ((headroomMb + 256) << 20) / perToken / 1024 * 1024 + 1024;
    org.junit.jupiter.api.Assumptions.assumeTrue(
        crowded <= 1_048_576, "this machine's headroom needs a context above --ctx's maximum");
    record Case(String experts, long ctx, long budgetMb, int parallel) {}
    List<Case> cases =
        List.of(
            new Case("stream", crowded, headroomMb + 64, 1),
            new Case("resident", crowded, headroomMb + 64, 1),
            new Case("resident", 65_536, 64, 1),
            new Case("stream", 4_096, 1, 1),
            new Case("resident", 4_096, 1, 1),
            // --parallel: the refusal then says what the sequences' pools weigh and which N fits
            new Case("stream", crowded / 2, headroomMb + 64, 3),
            new Case("resident", 4_096, 1, 2));
    for (Case c : cases) {
      NativeEngineTest.Lines l =
          check(
              wide,
              "--experts",
              c.experts(),
              "--ctx",
              Long.toString(c.ctx()),
              "--mem-budget-mb",
              Long.toString(c.budgetMb()),
              "--prompt-tokens",
              "1",
              "--n-predict",
              "0",
              "--parallel",
              Integer.toString(c.parallel()));
      MemoryPlan plan =
          MemoryPlan.compute(
              PlanRequest.of(host, geometry, Backend.CPU_REFERENCE)
                  .withParallel(c.parallel())
                  .withContext(c.ctx())
                  .withExperts(ExpertsMode.valueOf(c.experts().toUpperCase(java.util.Locale.ROOT)))
                  .withMemBudgetMb(c.budgetMb()));
      assertNotNull(plan.refusal(), c + " fits in Java");
      assertTrue(l.has(plan.refusal()), c + ": Java says " + plan.refusal() + "; C " + l.lines);
      assertTrue(l.has("rc=" + ExitCodes.PREFLIGHT), c + " " + l.lines);
    }
  }

  /**
   * Pools that cannot hold a model's heads are refused by strata-ref in the Java plan's words
   * (KvPlanRules, RefLimits): a format's own rule (int8 at head_dim 80, q4_0 at 128), strata-ref's
   * limits (head_dim 320 and 512 above 256, 72 KV heads above 64) whatever the format, and a model
   * both hold. Each is asked of the engine and of {@code MemoryPlan} for cpu-reference.
   */
  @Test
  void poolsThatCannotHoldTheHeadsAreRefusedInTheJavaPlansWords() throws Exception {
    record Case(int heads, int kvHeads, int headDim, KvFormat kv) {}
    List<Case> cases =
        List.of(
            new Case(4, 2, 80, KvFormat.INT8),
            new Case(4, 2, 128, KvFormat.Q4_0),
            new Case(2, 2, 320, KvFormat.FP16),
            new Case(2, 2, 512, KvFormat.INT8),
            new Case(72, 72, 64, KvFormat.FP16),
            new Case(4, 2, 128, KvFormat.INT8));
    HostFacts host = new HostFacts("linux", "x86_64", 8, 0, 0, 64L << 30, 0, false, false, "", 0);
    int refused = 0;
    for (Case c : cases) {
      TinyModel tiny =
          new TinyModel(
              "llama",
              1,
              64,
              c.heads(),
              c.kvHeads(),
              c.headDim(),
              64,
              0,
              0,
              0,
              256,
              dev.strata.engine.model.GgmlType.F32,
              dev.strata.engine.model.GgmlType.F32);
      String name = "h" + c.heads() + "x" + c.kvHeads() + "x" + c.headDim();
      Path m = tiny.write(dir, name, 1, 5).getFirst();
      ModelGeometry g = GgufReader.readModel(m).geometry();
      MemoryPlan plan =
          MemoryPlan.compute(
              PlanRequest.of(host, g, Backend.CPU_REFERENCE).withContext(64).withPools(c.kv()));
      NativeEngineTest.Lines l =
          check(
              m,
              "--kv",
              c.kv().flagName(),
              "--ctx",
              "64",
              "--prompt-tokens",
              "1",
              "--n-predict",
              "0");
      if (plan.kvFormatRefused()) {
        refused++;
        assertTrue(l.has(plan.refusal()), c + ": Java says " + plan.refusal() + "; C " + l.lines);
        assertTrue(l.has("rc=" + ExitCodes.PREFLIGHT), c + " " + l.lines);
      } else {
        assertTrue(l.startingWith("kv: format=").startsWith("kv: format="), c + " " + l.lines);
      }
    }
    assertEquals(5, refused);
  }

  /**
   * strata-ref's scratch item is RefScratch's bytes (RefScratch.BUFFERS, the table forward.c
   * allocates from, plus the logits row and the arena's books), on a MoE and on a dense model,
   * whose router buffers keep one expert's row.
   */
  @Test
  void theScratchIsTheJavaTablesBytes() throws Exception {
    HostFacts host = new HostFacts("linux", "x86_64", 8, 0, 0, 64L << 30, 0, false, false, "", 0);
    Path dense = TinyModel.dense("llama").write(dir, "d", 1, 7).getFirst();
    for (Path m : List.of(model, dense)) {
      ModelGeometry g = GgufReader.readModel(m).geometry();
      MemoryPlan plan =
          MemoryPlan.compute(PlanRequest.of(host, g, Backend.CPU_REFERENCE).withContext(64));
      NativeEngineTest.Lines l =
          check(m, "--ctx", "64", "--prompt-tokens", "1", "--n-predict", "0");
      assertTrue(plan.scratchBytes() > 0, m.toString());
      assertTrue(
          l.has("plan: item=scratch bytes=" + plan.scratchBytes()),
          m + ": Java " + plan.scratchBytes() + "; C " + l.lines);
    }
  }
}
