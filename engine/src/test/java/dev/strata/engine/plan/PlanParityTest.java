package dev.strata.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.model.ModelWidths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The memory plan's order of rules is written twice, in {@link Planner}/{@link StreamSizing} and in
 * engine/native/src/memory.c (docs/ARCHITECTURE.md, "One rule, one place"): this sweep holds them
 * together. Random configurations of cpu-reference — MoE and dense models, sliding-window and
 * recurrent layers, an MTP drafter, stream and resident experts, {@code --parallel}, {@code
 * --mem-budget-mb} below and above the plan's own, the stand-by and arena switches, budgets from
 * far too small to every expert held — are planned by both ({@code ref_selftest --plan} runs
 * memory.c's strata_memory_plan), and every figure must agree: whether it fits, the budget, KV,
 * stand-by slots and bytes, headroom, arena slots and bytes, scratch, shortfall, what is left, and
 * the accounting lines. A rule checked in another order, or a refusal that wins on one side only,
 * fails here.
 */
class PlanParityTest {
  static final int CASES = 3_000;

  record Case(PlanRequest request, String cLine) {}

  private static String pick(SplittableRandom r, String... values) {
    return values[r.nextInt(values.length)];
  }

  static Case random(SplittableRandom r) {
    int blocks = 1 + r.nextInt(64);
    List<Integer> qsa = new ArrayList<>();
    List<Integer> swa = new ArrayList<>();
    int every = 1 + r.nextInt(4);
    for (int b = every - 1; b < blocks; b += every) {
      qsa.add(b);
      if (r.nextInt(3) == 0) {
        swa.add(b);
      }
    }
    if (qsa.isEmpty()) {
      qsa.add(0);
    }
    int headDim = r.nextBoolean() ? 256 : 128;
    int kvHeads = 1 + r.nextInt(8);
    boolean moe = r.nextInt(4) != 0;
    int experts = moe ? 8 << r.nextInt(7) : 0;
    int used = moe ? 1 + r.nextInt(Math.min(experts, 16)) : 0;
    int moeLayers = moe ? 1 + r.nextInt(blocks) : 0;
    long slot = moe ? 1L + r.nextLong(64L << 20) : 0;
    long dense = r.nextLong(16L << 30);
    long window = swa.isEmpty() ? 0 : 1L + r.nextInt(8192);
    int recurrent = r.nextInt(4) == 0 ? r.nextInt(blocks + 1) : 0;
    long statePerLayer = recurrent > 0 ? r.nextLong(64L << 20) : 0;
    boolean drafter = r.nextInt(4) == 0;
    long drafterBytes = drafter ? 1 + r.nextLong(1L << 30) : 0;
    ModelWidths widths = moe ? Fixtures.SEED_WIDTHS : Fixtures.DENSE_WIDTHS;
    ModelGeometry g =
        new ModelGeometry(
            "qwen3moe",
            blocks,
            qsa,
            kvHeads,
            headDim,
            experts,
            used,
            moeLayers,
            slot,
            dense,
            262_144,
            1,
            headDim,
            swa,
            window,
            recurrent,
            statePerLayer,
            drafter ? 1 : 0,
            drafter ? List.of(blocks) : List.of(),
            drafterBytes,
            widths);
    long total = (1L + r.nextLong(512)) << 30;
    HostFacts host = new HostFacts("linux", "x86_64", 8, 0, 0, total, 0, false, false, "", 0);
    List<KvFormat> formats = KvRules.poolFormats(Backend.CPU_REFERENCE);
    KvFormat pools = formats.get(r.nextInt(formats.size()));
    if (pools == KvFormat.Q4_0) {
      pools = headDim == 256 ? pools : KvFormat.INT8;
    }
    long context = r.nextInt(3) == 0 ? 1 + r.nextInt(512) : 1 + r.nextLong(262_144);
    int parallel = r.nextInt(3) == 0 ? 2 + r.nextInt(4) : 1;
    long spec = drafter && r.nextBoolean() ? 1 + r.nextInt(4) : 0;
    boolean resident = r.nextInt(3) == 0;
    long ownMb = Math.max(0, total - MemoryPlan.SAFETY_MARGIN) >> 20;
    long memBudgetMb =
        switch (r.nextInt(4)) {
          case 0 -> 0;
          case 1 -> 1 + r.nextLong(Math.max(1, ownMb));
          case 2 -> ownMb + r.nextInt(3) - 1;
          default -> 1 + r.nextLong(2 * ownMb + 2);
        };
    Map<String, String> env = new HashMap<>();
    String prompt = pick(r, "-", "-", "window", "flash");
    String gemm = pick(r, "-", "-", "0", "1", "00", "+0");
    String bare = pick(r, "-", "-", "-", "1", "0");
    for (var e :
        List.of(
            Map.entry(StandbySlots.ENV_PROMPT, prompt),
            Map.entry(StandbySlots.ENV_PROMPT_GEMM, gemm),
            Map.entry(StreamSizing.ENV_BARE, bare))) {
      if (!e.getValue().equals("-")) {
        env.put(e.getKey(), e.getValue());
      }
    }
    PlanRequest request =
        PlanRequest.of(host, g, Backend.CPU_REFERENCE)
            .withContext(context)
            .withExperts(resident ? ExpertsMode.RESIDENT : ExpertsMode.STREAM)
            .withPools(pools)
            .withMemBudgetMb(memBudgetMb)
            .withParallel(parallel)
            .withSpec(spec)
            .withEnv(env);
    // what startup.c hands strata_memory_plan for this model and these flags
    long modelSlots = moe ? (long) experts * moeLayers : 0;
    long forward = RefScratch.bytes(g) - modelSlots * RefScratch.BOOK_BYTES_PER_SLOT;
    long swaCells = swa.isEmpty() ? 0 : KvFormat.cells(Math.min(context, window));
    // strata_mem_inputs' fields in their order (ref_internal.h), as startup.c fills them
    long[] f = {
      g.qsaLayers().size(),
      g.kvHeads(),
      g.headDim(),
      g.experts(),
      g.expertsUsed(),
      g.moeLayers(),
      g.expertBytes(),
      g.denseBytes(),
      g.stateBytes(),
      g.swaLayers().size(),
      swaCells,
      spec > 0 ? g.drafterKvLayers().size() : 0,
      spec > 0 ? g.drafterBytes() : 0,
      context,
      parallel,
      resident ? 1 : 0,
      pools.id(),
      memBudgetMb,
      total,
      forward
    };
    StringBuilder line = new StringBuilder();
    for (long v : f) {
      line.append(v).append(' ');
    }
    line.append(prompt).append(' ').append(gemm).append(' ').append(bare);
    return new Case(request, line.toString());
  }

  /** The C answer's figures for a Java plan, in the order ref_selftest --plan writes them. */
  static String javaLine(MemoryPlan p) {
    String figures =
        String.join(
            " ",
            p.fits() ? "1" : "0",
            Long.toString(p.budgetBytes()),
            Long.toString(p.kv().bytes()),
            Integer.toString(p.standby().slots()),
            Long.toString(p.standbyBytes()),
            Long.toString(p.pageCacheHeadroomBytes()),
            Long.toString(p.arena().slots()),
            Long.toString(p.arena().bytes()),
            Long.toString(p.scratchBytes()),
            Long.toString(p.shortfallBytes()),
            Long.toString(p.freeBytes()));
    List<String> items = PlanItems.lines(p);
    return items.isEmpty() ? figures : figures + " " + String.join("|", items);
  }

  @Test
  void bothEnginesPlanEveryConfigurationAlike() throws Exception {
    SplittableRandom r = new SplittableRandom(2026_12_02L);
    List<Case> cases = new ArrayList<>();
    while (cases.size() < CASES) {
      Case c = random(r);
      // pools that cannot hold the heads are refused before memory.c is asked (startup.c)
      if (KvPlanRules.refusal(c.request().pools(), c.request().model(), Backend.CPU_REFERENCE)
          == null) {
        cases.add(c);
      }
    }
    List<String> lines = SelfTestProbe.ask("plan", cases.stream().map(Case::cLine).toList());
    Map<String, Integer> outcomes = new HashMap<>();
    for (int i = 0; i < cases.size(); i++) {
      MemoryPlan plan = Planner.plan(cases.get(i).request());
      outcomes.merge(outcome(plan), 1, Integer::sum);
      String where = "case " + i + " (" + cases.get(i).cLine() + "): Java, then strata-ref";
      assertEquals(javaLine(plan), lines.get(i), where);
    }
    // the sweep reaches every branch of the plan in numbers
    for (String o :
        List.of(
            "dense fits",
            "dense refused",
            "stream holds every expert",
            "stream streams",
            "stream refused",
            "resident fits",
            "resident refused")) {
      assertEquals(true, outcomes.getOrDefault(o, 0) >= 30, o + ": " + outcomes);
    }
  }

  /** Which branch of the plan decided. */
  private static String outcome(MemoryPlan p) {
    String result = p.fits() ? " fits" : " refused";
    if (p.arena().modelSlots() == 0) {
      return "dense" + result;
    }
    if (p.experts() == ExpertsMode.RESIDENT) {
      return "resident" + result;
    }
    if (p.fits() && p.arena().slots() == p.arena().modelSlots() && p.standbyBytes() == 0) {
      return "stream holds every expert";
    }
    return p.fits() ? "stream streams" : "stream refused";
  }
}
