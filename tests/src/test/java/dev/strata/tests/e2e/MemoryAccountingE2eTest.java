package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.DemoModel;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.GgmlType;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.GgufValue;
import dev.strata.engine.model.GgufWriter;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanRequest;
import dev.strata.engine.plan.PlanText;
import dev.strata.engine.plan.UsableMemory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory plan checked against the operating system (issue 15, docs/PLAN.md "Checked against the
 * engine"): strata-ref runs, in its own small process (the {@code strata-ref-run} driver, not a
 * JVM), on models of several shapes (hybrid MoE in two shards, an all-attention MoE with head_dim
 * 128, the demo's own seed geometry), in both KV formats where the model allows them, at a tight
 * budget (one token's experts and a few slots more beside the stand-by and the page-cache headroom:
 * the demo's arena evicts, the small models' hold every expert since their experts weigh less than
 * the headroom), a roomy one (the stream arena holds every expert) and resident. For every run:
 *
 * <ul>
 *   <li>the engine's {@code alloc:} lines equal {@link PlanText#items} of the Java plan for this
 *       machine, byte for byte;
 *   <li>the arena never fills more slots than the plan gives it, and the engine's slot count is the
 *       plan's;
 *   <li>the peak resident set the OS reports (getrusage) is at most the allocated items plus {@link
 *       #ALLOWANCE}, and at least the arena slots the run filled.
 * </ul>
 */
class MemoryAccountingE2eTest {
  /**
   * What a run holds beyond the plan's items: the driver and strata-ref's code, libc and the C++
   * runtime, two thread stacks, stdio buffers, the GGUF reader's bounded tables and the shard file
   * descriptors. Measured at 5–6 MiB for a run whose items are a few hundred KiB; 32 MiB leaves
   * room for the allocator's rounding of the larger buffers (each is its own mapping, at most a
   * page over).
   */
  static final long ALLOWANCE = 32L << 20;

  private static final Pattern ARENA =
      Pattern.compile(
          "arena: mode=(\\w+) slots=(\\d+) slots_used=(\\d+) hits=(\\d+) misses=(\\d+) .*");
  private static final Pattern EVICTIONS = Pattern.compile("arena: .* evictions=(\\d+) .*");
  private static final Pattern PEAK =
      Pattern.compile("memory: peak_rss_bytes=(\\d+) allocated_bytes=(\\d+)");

  @TempDir Path dir;

  record Run(List<String> lines, int code) {}

  @Test
  void allocationsEqualThePlanAndTheOsCountStaysWithinIt() throws Exception {
    HostFacts here = E2e.here();
    Path driver = E2e.refLibrary().resolveSibling("strata-ref-run");
    assertTrue(Files.isExecutable(driver), "the driver is built at " + driver);

    List<Path> hybrid = write("hybrid", hybridMoe(), 2);
    List<Path> dense128 = write("attn128", attentionMoe(), 1);
    List<Path> demo = DemoModel.write(dir.resolve("demo"), 1);
    int runs = 0;
    for (List<Path> model : List.of(hybrid, dense128, demo)) {
      ModelGeometry g = GgufReader.readModel(model.getFirst()).geometry();
      boolean isDemo = model == demo;
      List<KvFormat> formats =
          g.headDim() == 256 ? List.of(KvFormat.INT8, KvFormat.Q4_0) : List.of(KvFormat.INT8);
      for (KvFormat f : formats) {
        long ctx = 2048;
        // tight: one token's experts and 8 slots more, beside the model-bounded stand-by and the
        // page-cache headroom a streaming arena needs. The demo's experts (19.9 GB) outweigh
        // that headroom, so its arena fills and evicts. The small models' experts (a few MiB) do
        // not: a budget holding the headroom holds every expert, so by the plan's rule
        // (MemoryPlan.stream, memory.c) nothing streams, with no stand-by and no headroom; the
        // run checks that rule instead (every slot loaded once, no eviction).
        MemoryPlan open = plan(here, g, ctx, ExpertsMode.STREAM, f, Map.of(), 0);
        long fixed = MemoryPlan.streamingFixedBytes(open, g, Map.of(), here);
        long tightMb =
            ceilDiv(
                fixed + (open.arena().tokenSlots() + 8) * open.arena().slotBytes(),
                UsableMemory.MIB);
        int tokens = isDemo ? 2 : 24;
        MemoryPlan tight = plan(here, g, ctx, ExpertsMode.STREAM, f, Map.of(), tightMb);
        assertEquals(
            !isDemo,
            tight.arena().holdsEveryExpert(),
            g.architecture() + ": only the demo's experts outweigh the page-cache headroom");
        check(driver, model, g, f, ctx, ExpertsMode.STREAM, Map.of(), tightMb, tokens, isDemo);
        runs++;
        if (isDemo) {
          continue; // the demo's 24,576 slots of 811 KB: the tight run is enough here
        }
        // roomy: every expert fits in the stream arena, with the stand-by slots off (64, not 576)
        check(
            driver,
            model,
            g,
            f,
            ctx,
            ExpertsMode.STREAM,
            Map.of("STRATA_METAL_PROMPT_GEMM", "0"),
            0,
            tokens,
            false);
        check(driver, model, g, f, ctx, ExpertsMode.RESIDENT, Map.of(), 0, tokens, false);
        runs += 2;
      }
    }
    assertEquals(11, runs);
  }

  /**
   * {@code strata-launch --json} of a run: one JSON document on stdout with the engine's {@code
   * alloc} items (the plan's), its arena counters and its peak memory; the engine's lines on
   * stderr.
   */
  @Test
  void launchJsonReturnsTheRunsCounters() throws Exception {
    List<Path> model = write("json", hybridMoe(), 1);
    Path cfg =
        E2e.config(
            dir.resolve("json.yaml"),
            E2e.refLibrary(),
            null,
            model,
            2048,
            List.of("--prompt-tokens", "16", "--n-predict", "3", "--kv", "q4_0"),
            Map.of());
    E2e.Result r = E2e.launch("--config", cfg.toString(), "--json");
    assertEquals(0, r.code(), r.err());
    com.fasterxml.jackson.databind.JsonNode j =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
    assertEquals(0, j.get("exit_code").asInt(), r.out());
    ModelGeometry g = GgufReader.readModel(model.getFirst()).geometry();
    MemoryPlan p = plan(E2e.here(), g, 2048, ExpertsMode.STREAM, KvFormat.Q4_0, Map.of(), 0);
    List<String> items = new ArrayList<>();
    j.get("alloc")
        .forEach(a -> items.add("item=" + a.get("item").asText() + " bytes=" + a.get("bytes")));
    assertEquals(PlanText.items(p), items, r.out());
    assertEquals("stream", j.get("arena").get("mode").asText(), r.out());
    assertEquals(p.arena().slots(), j.get("arena").get("slots").asLong(), r.out());
    assertEquals(
        3L * g.expertsUsed() * g.moeLayers(),
        j.get("arena").get("hits").asLong() + j.get("arena").get("misses").asLong(),
        r.out());
    assertTrue(j.get("memory").get("peak_rss_bytes").asLong() > 0, r.out());
    assertEquals(3, j.get("decode").get("tokens").asInt(), r.out());
    assertEquals(p.budgetBytes(), j.get("plan").get("budget_bytes").asLong(), r.out());
    assertTrue(
        r.err().contains("arena: mode=stream"), "the engine's lines go to stderr: " + r.err());
  }

  private void check(
      Path driver,
      List<Path> model,
      ModelGeometry g,
      KvFormat f,
      long ctx,
      ExpertsMode mode,
      Map<String, String> env,
      long memBudgetMb,
      int tokens,
      boolean expectEvictions)
      throws Exception {
    HostFacts here = E2e.here();
    MemoryPlan p = plan(here, g, ctx, mode, f, env, memBudgetMb);
    assertTrue(p.fits(), p.refusal());
    List<String> args =
        new ArrayList<>(
            List.of(
                driver.toString(),
                "run",
                "--model",
                model.getFirst().toString(),
                "--ctx",
                Long.toString(ctx),
                "--kv",
                f.flagName(),
                "--prompt-tokens",
                "64",
                "--n-predict",
                Integer.toString(tokens),
                "--threads",
                "1",
                "--experts",
                mode.id()));
    if (memBudgetMb > 0) {
      args.add("--mem-budget-mb");
      args.add(Long.toString(memBudgetMb));
    }
    Run r = run(args, env);
    String where = g.architecture() + " " + f.flagName() + " " + mode.id() + " mb=" + memBudgetMb;
    String all = where + ":\n" + String.join("\n", r.lines());
    assertEquals(0, r.code(), all);

    List<String> alloc =
        r.lines().stream()
            .filter(l -> l.startsWith("alloc: "))
            .map(l -> l.substring("alloc: ".length()))
            .toList();
    assertEquals(PlanText.items(p), alloc, all);

    Matcher a = find(r.lines(), ARENA, all);
    long slots = Long.parseLong(a.group(2));
    long used = Long.parseLong(a.group(3));
    long misses = Long.parseLong(a.group(5));
    assertEquals(p.arena().slots(), slots, all);
    assertTrue(used <= p.arena().slots(), "slots used " + used + " > plan: " + all);
    assertTrue(
        Long.parseLong(a.group(4)) + misses == (long) tokens * g.expertsUsed() * g.moeLayers(),
        "every token routes experts_used experts in every MoE layer: " + all);
    long evictions = Long.parseLong(find(r.lines(), EVICTIONS, all).group(1));
    if (expectEvictions) {
      assertEquals(slots, used, "the tight arena fills: " + all);
      assertTrue(misses > slots, "and evicts: " + all);
      assertEquals(misses - slots, evictions, "every miss past a full arena evicts: " + all);
    } else {
      assertEquals(0, evictions, "an arena holding every expert never evicts: " + all);
      if (mode == ExpertsMode.STREAM) {
        assertEquals(used, misses, "each streamed expert is read once: " + all);
      }
    }

    Matcher m = find(r.lines(), PEAK, all);
    long peak = Long.parseLong(m.group(1));
    long allocated =
        p.kv().bytes() + p.stateBytes() + p.standbyBytes() + p.arena().bytes() + p.scratchBytes();
    assertEquals(allocated, Long.parseLong(m.group(2)), all);
    assertTrue(
        peak <= allocated + ALLOWANCE,
        "peak RSS "
            + peak
            + " > allocated "
            + allocated
            + " + allowance "
            + ALLOWANCE
            + ": "
            + all);
    if (mode == ExpertsMode.STREAM) {
      long filled = used * p.arena().slotBytes();
      assertTrue(
          peak >= filled, "peak RSS " + peak + " below the filled slots " + filled + ": " + all);
    }
  }

  private static MemoryPlan plan(
      HostFacts host,
      ModelGeometry g,
      long ctx,
      ExpertsMode mode,
      KvFormat f,
      Map<String, String> env,
      long memBudgetMb) {
    KvDecision.Accepted kv = (KvDecision.Accepted) KvRules.decide(Backend.CPU_REFERENCE, f, env);
    return MemoryPlan.compute(
        PlanRequest.of(host, g, Backend.CPU_REFERENCE)
            .withContext(ctx)
            .withExperts(mode)
            .withKv(kv)
            .withEnv(env)
            .withMemBudgetMb(memBudgetMb));
  }

  private static Matcher find(List<String> lines, Pattern p, String context) {
    for (String l : lines) {
      Matcher m = p.matcher(l);
      if (m.matches()) {
        return m;
      }
    }
    throw new AssertionError("no line matching " + p + " in " + context);
  }

  private static Run run(List<String> args, Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(args).redirectErrorStream(true);
    // only this case's switches: nothing of the test runner's own STRATA_* environment
    pb.environment().keySet().removeIf(k -> k.startsWith("STRATA_"));
    pb.environment().putAll(env);
    Process proc = pb.start();
    byte[] out = proc.getInputStream().readAllBytes();
    assertTrue(proc.waitFor(300, TimeUnit.SECONDS), "strata-ref finished");
    return new Run(new String(out, StandardCharsets.UTF_8).lines().toList(), proc.exitValue());
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  private List<Path> write(String name, Model m, int shards) throws IOException {
    Files.createDirectories(dir.resolve(name));
    return GgufWriter.writeSplit(dir.resolve(name), name, shards, m.meta(), m.tensors());
  }

  record Model(SequencedMap<String, GgufValue> meta, List<GgufWriter.Tensor> tensors) {}

  /**
   * A small hybrid MoE (qwen3next-like): 8 blocks, full attention every 4th (2 layers of 2 KV heads
   * × 256), 64 experts of FFN 128 in Q4_0 (9,216-byte slots), 4 used per token.
   */
  static Model hybridMoe() {
    return moe("qwen3next", 8, 4, 2, 256, 512, 64, 4, 128, GgmlType.Q4_0);
  }

  /**
   * An all-attention MoE (qwen3moe-like): 6 blocks of 4 KV heads × 128, 32 experts in Q8_0, 2 used.
   */
  static Model attentionMoe() {
    return moe("qwen3moe", 6, 0, 4, 128, 512, 32, 2, 256, GgmlType.Q8_0);
  }

  private static Model moe(
      String arch,
      int blocks,
      int interval,
      int kvHeads,
      int headDim,
      int width,
      int experts,
      int used,
      int ffn,
      GgmlType expertType) {
    String a = arch + ".";
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("general.architecture", GgufValue.string(arch));
    m.put(a + "block_count", GgufValue.u32(blocks));
    m.put(a + "context_length", GgufValue.u32(32768));
    m.put(a + "embedding_length", GgufValue.u32(width));
    m.put(a + "attention.head_count", GgufValue.u32(8));
    m.put(a + "attention.head_count_kv", GgufValue.u32(kvHeads));
    m.put(a + "attention.key_length", GgufValue.u32(headDim));
    m.put(a + "attention.value_length", GgufValue.u32(headDim));
    m.put(a + "expert_count", GgufValue.u32(experts));
    m.put(a + "expert_used_count", GgufValue.u32(used));
    if (interval > 0) {
      m.put(a + "full_attention_interval", GgufValue.u32(interval));
    }
    List<GgufWriter.Tensor> t = new ArrayList<>();
    t.add(GgufWriter.Tensor.of("token_embd.weight", GgmlType.Q8_0, width, 1024));
    for (int n = 0; n < blocks; n++) {
      String b = "blk." + n + ".";
      t.add(GgufWriter.Tensor.of(b + "attn_norm.weight", GgmlType.F32, width));
      if (interval == 0 || (n + 1) % interval == 0) {
        t.add(GgufWriter.Tensor.of(b + "attn_q.weight", GgmlType.Q8_0, width, 8L * headDim));
        t.add(GgufWriter.Tensor.of(b + "attn_k.weight", GgmlType.Q8_0, width, kvHeads * headDim));
        t.add(GgufWriter.Tensor.of(b + "attn_v.weight", GgmlType.Q8_0, width, kvHeads * headDim));
      } else {
        t.add(GgufWriter.Tensor.of(b + "ssm_in.weight", GgmlType.Q8_0, width, 2048));
      }
      t.add(GgufWriter.Tensor.of(b + "ffn_gate_exps.weight", expertType, width, ffn, experts));
      t.add(GgufWriter.Tensor.of(b + "ffn_up_exps.weight", expertType, width, ffn, experts));
      t.add(GgufWriter.Tensor.of(b + "ffn_down_exps.weight", expertType, ffn, width, experts));
    }
    t.add(GgufWriter.Tensor.of("output.weight", GgmlType.Q8_0, width, 1024));
    return new Model(m, t);
  }
}
