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
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.model.TinyModel;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanItems;
import dev.strata.engine.plan.PlanRequest;
import dev.strata.engine.plan.PlanText;
import dev.strata.engine.plan.UsableMemory;
import dev.strata.testsupport.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory plan checked against the operating system (issue 15, docs/PLAN.md "Checked against the
 * engine"): strata-ref runs the real forward pass, in its own small process (the {@code
 * strata-ref-run} driver, not a JVM), on models it computes: a synthetic qwen3moe with seeded
 * weights in two shards (2 KV heads × 256) and one with heads of 128 ({@link TinyModel}), and, when
 * the shared data is here, the real tiny qwen3moe and dense qwen3 (Q8_0). In every KV format the
 * model allows (int8, q4_0 where head_dim is 256, strata-ref's real fp16), at a tight budget (one
 * token's experts and a few slots more: the small models' experts weigh less than the page-cache
 * headroom, so by the plan's rule the arena holds every expert), a roomy one and resident. For
 * every run:
 *
 * <ul>
 *   <li>the engine's {@code alloc:} lines equal {@link PlanText#items} of the Java plan for this
 *       machine, byte for byte (the weights, mapped, first);
 *   <li>the arena never fills more slots than the plan gives it, and the engine's slot count is the
 *       plan's;
 *   <li>the peak resident set the OS reports (getrusage) is at most the allocated items plus {@link
 *       #ALLOWANCE}, and at least the arena slots the run filled.
 * </ul>
 *
 * <p>The seed geometry (the demo model, qwen3next) is a planning model strata-ref refuses: {@link
 * #theSeedGeometryIsRefusedWithItsOneLine}.
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
          "arena: mode=(\\w+) slots=(\\d+) slots_used=(\\d+) lookups=(\\d+) hits=(\\d+)"
              + " misses=(\\d+) .*");

  /** The synthetic prompt of every run, in tokens. */
  private static final int PROMPT_TOKENS = 64;

  private static final Pattern EVICTIONS = Pattern.compile("arena: .* evictions=(\\d+) .*");
  // strata-ref's last line; start_rss_bytes (its resident set before it held anything) since
  // 572e9ed, read by RssWithinPlanE2eTest
  private static final Pattern PEAK =
      Pattern.compile("memory: peak_rss_bytes=(\\d+) allocated_bytes=(\\d+) start_rss_bytes=\\d+");

  @TempDir Path dir;

  @Test
  void allocationsEqualThePlanAndTheOsCountStaysWithinIt() throws Exception {
    HostFacts here = E2e.here();
    List<List<Path>> models = new ArrayList<>();
    models.add(TinyModel.moe().write(dir.resolve("moe"), "moe", 2, 27));
    models.add(TinyModel.moe().withHeadDim(128).write(dir.resolve("moe128"), "moe128", 1, 28));
    Optional<Path> shared = SharedData.resolve("models");
    if (shared.isPresent() && Files.isDirectory(shared.get())) {
      models.add(List.of(shared.get().resolve("tiny-qwen3moe-q8_0.gguf")));
      models.add(List.of(shared.get().resolve("tiny-qwen3-q8_0.gguf")));
    }
    int runs = 0;
    for (List<Path> model : models) {
      ModelGeometry g = GgufReader.readModel(model.getFirst()).geometry();
      List<KvFormat> formats =
          g.headDim() == 256
              ? List.of(KvFormat.INT8, KvFormat.Q4_0, KvFormat.FP16)
              : List.of(KvFormat.INT8, KvFormat.FP16);
      for (KvFormat f : formats) {
        long ctx = 2048;
        int tokens = 24;
        if (g.experts() > 0) {
          // tight: one token's experts and 8 slots more, beside the model-bounded stand-by and the
          // page-cache headroom a streaming arena needs. These experts (a few MiB) weigh less
          // than that headroom: a budget holding the headroom holds every expert, so by the
          // plan's rule (MemoryPlan.stream, memory.c) nothing streams, with no stand-by and no
          // headroom; the run checks that rule (every slot loaded once, no eviction).
          MemoryPlan open = plan(here, g, ctx, ExpertsMode.STREAM, f, Map.of(), 0);
          long fixed = MemoryPlan.streamingFixedBytes(open, g, Map.of(), here);
          long tightMb =
              ceilDiv(
                  fixed + (open.arena().tokenSlots() + 8) * open.arena().slotBytes(),
                  UsableMemory.MIB);
          MemoryPlan tight = plan(here, g, ctx, ExpertsMode.STREAM, f, Map.of(), tightMb);
          assertTrue(tight.arena().holdsEveryExpert(), g.architecture() + ": small experts");
          check(model, g, f, ctx, ExpertsMode.STREAM, Map.of(), tightMb, tokens);
          runs++;
        }
        // roomy: every expert fits in the stream arena, with the stand-by slots off (64, not 576)
        check(
            model,
            g,
            f,
            ctx,
            ExpertsMode.STREAM,
            Map.of("STRATA_METAL_PROMPT_GEMM", "0"),
            0,
            tokens);
        check(model, g, f, ctx, ExpertsMode.RESIDENT, Map.of(), 0, tokens);
        runs += 2;
      }
    }
    assertEquals(models.size() == 4 ? 9 + 6 + 9 + 6 : 9 + 6, runs);
  }

  /**
   * The seed geometry (the demo model, qwen3next) is planned, never computed: strata-ref refuses it
   * with one line naming the architecture and what it computes, exit 3, in main and in its check
   * (ABI 2), before it allocates anything.
   */
  @Test
  void theSeedGeometryIsRefusedWithItsOneLine() throws Exception {
    List<Path> demo = DemoModel.write(dir.resolve("demo"), 2);
    String line =
        "model: "
            + demo.getFirst()
            + ": architecture qwen3next is not one strata-ref computes (it computes qwen3,"
            + " qwen3moe, qwen2, llama)";
    for (String mode : List.of("run", "check")) {
      RefRun r = RefRun.of(mode, demo.getFirst(), List.of(), Map.of());
      String all = mode + ":\n" + String.join("\n", r.lines());
      assertEquals(3, r.code(), all);
      assertEquals(line, r.lines().getLast(), all);
      assertEquals(1, r.lines().stream().filter(l -> l.contains("qwen3next is not")).count(), all);
      assertTrue(r.lines().stream().noneMatch(l -> l.startsWith("alloc: ")), all);
      assertTrue(r.lines().stream().noneMatch(l -> l.startsWith("plan: ")), all);
    }
  }

  /**
   * strata-ref's check (ABI 2) logs the very items its main allocates, and they are the Java plan's
   * ({@link PlanItems#lines}), on every architecture it computes.
   */
  @Test
  void theChecksPlanLinesAreTheJavaPlansOnEveryArchitecture() throws Exception {
    HostFacts here = E2e.here();
    List<TinyModel> models =
        List.of(
            TinyModel.dense("llama"),
            TinyModel.dense("qwen2"),
            TinyModel.dense("qwen3"),
            TinyModel.moe());
    for (TinyModel m : models) {
      List<Path> files = m.write(dir.resolve("check-" + m.arch()), m.arch(), 1, 5);
      ModelGeometry g = GgufReader.readModel(files.getFirst()).geometry();
      for (KvFormat f : List.of(KvFormat.INT8, KvFormat.Q4_0, KvFormat.FP16)) {
        MemoryPlan p = plan(here, g, 1024, ExpertsMode.STREAM, f, Map.of(), 0);
        RefRun r =
            RefRun.of(
                "check",
                files.getFirst(),
                List.of("--ctx", "1024", "--kv", f.flagName()),
                Map.of());
        String all = m.arch() + " " + f.flagName() + ":\n" + String.join("\n", r.lines());
        assertEquals(0, r.code(), all);
        assertEquals(
            PlanItems.lines(p),
            r.lines().stream().filter(l -> l.startsWith("plan: ")).toList(),
            all);
      }
    }
  }

  /**
   * {@code --parallel N}: every sequence has its own pools, and the engine's check lists the items
   * of the Java plan of N sequences — the KV item N times one sequence's, the rest (a stream arena
   * sized after the KV) as the plan says.
   */
  @Test
  void parallelSequencesArePlannedAndCheckedAlike() throws Exception {
    HostFacts here = E2e.here();
    for (TinyModel m : List.of(TinyModel.dense("qwen3"), TinyModel.moe())) {
      List<Path> files = m.write(dir.resolve("parallel-" + m.arch()), m.arch(), 1, 5);
      ModelGeometry g = GgufReader.readModel(files.getFirst()).geometry();
      MemoryPlan one = plan(here, g, 512, ExpertsMode.STREAM, KvFormat.INT8, Map.of(), 0);
      MemoryPlan three =
          MemoryPlan.compute(planRequest(here, g, 512, KvFormat.INT8).withParallel(3));
      assertEquals(3 * one.kv().bytes(), three.kv().bytes(), m.arch());
      assertEquals(3, three.kv().sequences());
      RefRun r =
          RefRun.of(
              "check",
              files.getFirst(),
              List.of("--ctx", "512", "--kv", "int8", "--parallel", "3"),
              Map.of());
      String all = m.arch() + ":\n" + String.join("\n", r.lines());
      assertEquals(0, r.code(), all);
      assertEquals(
          PlanItems.lines(three),
          r.lines().stream().filter(l -> l.startsWith("plan: ")).toList(),
          all);
      assertTrue(r.lines().contains("kv: sequences=3 bytes_per_sequence=" + one.kv().bytes()), all);
    }
  }

  private static PlanRequest planRequest(HostFacts host, ModelGeometry g, long ctx, KvFormat f) {
    KvDecision.Accepted kv =
        (KvDecision.Accepted) KvRules.decide(Backend.CPU_REFERENCE, f, Map.of());
    return PlanRequest.of(host, g, Backend.CPU_REFERENCE)
        .withContext(ctx)
        .withExperts(ExpertsMode.STREAM)
        .withKv(kv)
        .withEnv(Map.of());
  }

  /**
   * {@code strata-launch --json} of a run: one JSON document on stdout with the engine's {@code
   * alloc} items (the plan's), its arena counters and its peak memory; the engine's lines on
   * stderr.
   */
  @Test
  void launchJsonReturnsTheRunsCounters() throws Exception {
    List<Path> model = TinyModel.moe().write(dir.resolve("json"), "json", 1, 29);
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
    // every decoded token routes experts_used experts in every MoE layer; the prompt's batch routes
    // each expert it picks once per layer
    assertTrue(
        j.get("arena").get("hits").asLong() + j.get("arena").get("misses").asLong()
            >= 3L * g.expertsUsed() * g.moeLayers(),
        r.out());
    assertTrue(j.get("memory").get("peak_rss_bytes").asLong() > 0, r.out());
    assertEquals(3, j.get("decode").get("tokens").asInt(), r.out());
    assertEquals(p.budgetBytes(), j.get("plan").get("budget_bytes").asLong(), r.out());
    assertTrue(
        r.err().contains("arena: mode=stream"), "the engine's lines go to stderr: " + r.err());
  }

  private void check(
      List<Path> model,
      ModelGeometry g,
      KvFormat f,
      long ctx,
      ExpertsMode mode,
      Map<String, String> env,
      long memBudgetMb,
      int tokens)
      throws Exception {
    HostFacts here = E2e.here();
    MemoryPlan p = plan(here, g, ctx, mode, f, env, memBudgetMb);
    assertTrue(p.fits(), p.refusal());
    List<String> args =
        new ArrayList<>(
            List.of(
                "--ctx",
                Long.toString(ctx),
                "--kv",
                f.flagName(),
                "--prompt-tokens",
                Integer.toString(PROMPT_TOKENS),
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
    RefRun r = RefRun.of("run", model.getFirst(), args, env);
    String where = g.architecture() + " " + f.flagName() + " " + mode.id() + " mb=" + memBudgetMb;
    String all = where + ":\n" + String.join("\n", r.lines());
    assertEquals(0, r.code(), all);

    List<String> alloc =
        r.lines().stream()
            .filter(l -> l.startsWith("alloc: "))
            .map(l -> l.substring("alloc: ".length()))
            .toList();
    assertEquals(PlanText.items(p), alloc, all);

    long used = 0;
    if (g.experts() > 0) {
      Matcher a = RefRun.find(r.lines(), ARENA, all);
      long slots = Long.parseLong(a.group(2));
      used = Long.parseLong(a.group(3));
      long lookups = Long.parseLong(a.group(4));
      long misses = Long.parseLong(a.group(6));
      assertEquals(p.arena().slots(), slots, all);
      assertTrue(used <= p.arena().slots(), "slots used " + used + " > plan: " + all);
      assertEquals(lookups, Long.parseLong(a.group(5)) + misses, "a lookup hits or misses: " + all);
      // every decoded token routes experts_used experts in every MoE layer; each batch of the
      // prompt (32 tokens) looks each expert it picks up once per layer
      long decode = (long) tokens * g.expertsUsed() * g.moeLayers();
      long prompt = ceilDiv(PROMPT_TOKENS, 32) * g.moeLayers() * (long) g.experts();
      assertTrue(lookups >= decode && lookups <= decode + prompt, "lookups: " + all);
      long evictions = Long.parseLong(RefRun.find(r.lines(), EVICTIONS, all).group(1));
      assertEquals(0, evictions, "an arena holding every expert never evicts: " + all);
      if (mode == ExpertsMode.STREAM) {
        assertEquals(used, misses, "each streamed expert is read once: " + all);
      }
    } else {
      assertTrue(r.lines().stream().noneMatch(l -> l.startsWith("arena: ")), all);
    }

    Matcher m = RefRun.find(r.lines(), PEAK, all);
    long peak = Long.parseLong(m.group(1));
    long allocated =
        p.denseBytes()
            + p.kv().bytes()
            + p.stateBytes()
            + p.standbyBytes()
            + p.arena().bytes()
            + p.scratchBytes();
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

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }
}
