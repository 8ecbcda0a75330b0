package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.host.AvailableMemory;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.model.GgmlType;
import dev.strata.engine.model.GgufWriter;
import dev.strata.engine.model.TinyModel;
import dev.strata.engine.plan.LaunchMemory;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanText;
import dev.strata.launcher.LaunchMain;
import dev.strata.launcher.preflight.Preflight;
import dev.strata.metal.HostProbe;
import dev.strata.testsupport.Captured;
import dev.strata.testsupport.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launch's memory check with the real engine (issue 28, docs/LAUNCH.md "Memory available now"),
 * on fake figures of the memory available now (never this machine's): the argv of a lowered launch
 * makes strata-ref allocate exactly the lowered plan (its {@code alloc:} lines, its arena's slots),
 * and a launch that does not fit is refused in one line before the engine starts. The engine runs
 * in its own small process (the {@code strata-ref-run} driver, as in MemoryAccountingE2eTest) on
 * this machine's facts, so its own plan (from its total memory) is the launcher's.
 *
 * <p>Only a model whose experts outweigh the page-cache headroom a streaming arena keeps (max(2
 * GiB, memory / 8)) can be lowered: below that, every budget that streams holds every expert (the
 * plan's rule, memory.c). The lowered branch runs on {@link #bigExperts}, a qwen3moe strata-ref
 * computes with twice that weight of experts, written as zeros left as holes (a sparse file: no
 * disk, no time to write); the real MoE model, tiny-qwen3moe, cannot be lowered, so on it the check
 * either fits or refuses, and both are run here.
 */
class MemoryNowE2eTest {
  private static final long GIB = 1L << 30;
  private static final Pattern ARENA = Pattern.compile("arena: mode=\\w+ slots=(\\d+) .*");
  private static final Pattern BUDGET = Pattern.compile("memory: total=\\d+ budget=(\\d+) .*");

  @TempDir Path dir;

  @Test
  void aLoweredLaunchsArgvIsWhatTheEngineAllocates() throws Exception {
    HostFacts here = E2e.here();
    long headroom = Math.max(2 * GIB, here.memoryBytes() / 8); // StreamSizing.pageCacheHeadroom
    TinyModel model = bigExperts(2 * headroom);
    Files.createDirectories(dir.resolve("big"));
    List<Path> shards =
        GgufWriter.writeSplit(dir.resolve("big"), "big", 1, model.metadata(), model.tensors());
    // 64 stand-by slots, not the prompt GEMM's experts + 64: less for the engine to hold
    Map<String, String> env = Map.of("STRATA_METAL_PROMPT_GEMM", "0");
    Path cfg = config("big.yaml", shards, env);
    EngineConfig c = ConfigCodec.read(cfg);
    Preflight.Report planned = Preflight.forPlan(c, cfg, new Preflight.Here(here, null), Map.of());
    MemoryPlan open = planned.plan();
    assertTrue(open.fits(), open.refusal());
    // room for one token's experts and 64 slots more beside what a streaming plan holds
    long fixed =
        MemoryPlan.streamingFixedBytes(open, planned.model().geometry(), env, here) - headroom;
    long room = fixed + (open.arena().tokenSlots() + 64) * open.arena().slotBytes();
    AvailableMemory now = new AvailableMemory(here.memoryBytes(), room + GIB, "test");
    Preflight.Report r = Preflight.forPlan(c, cfg, new Preflight.Here(here, now), Map.of());
    assertEquals("memory", r.warnings().getFirst().name(), r.checks().toString());
    MemoryPlan lowered = r.plan();
    long slots = lowered.arena().slots();
    assertTrue(Math.abs(slots - (open.arena().tokenSlots() + 64)) <= 2, "slots " + slots);
    assertTrue(slots < lowered.arena().modelSlots(), "the lowered arena streams");
    assertTrue(r.args().contains("--mem-budget-mb"), r.args().toString());
    assertEquals(c.args(), r.config().args(), "the config is not rewritten");
    assertEquals(Files.readString(cfg), ConfigCodec.write(c), "nor is its file");

    RefRun run = engine(r.args(), env);
    assertEquals(0, run.code(), run.text());
    // the engine planned from the lowered --mem-budget-mb, and holds at most the room
    assertEquals(lowered.budgetBytes(), Long.parseLong(find(run, BUDGET).group(1)), run.text());
    assertTrue(allocated(run) <= room, allocated(run) + " > room " + room + ":\n" + run.text());
    assertEquals(PlanText.items(lowered), alloc(run), run.text());
    Matcher m = find(run, ARENA);
    assertEquals(slots, Long.parseLong(m.group(1)), run.text());
  }

  /**
   * A qwen3moe strata-ref computes with at least {@code expertBytes} of experts: 24 layers of 2 KV
   * heads × 128, width 128, experts of FFN 1664 in Q8_0 (3 × 128 × 1664 × 34/32 = 678,912 B a
   * slot), 2 used, as many per layer as it takes (at most strata-ref's 4,096).
   */
  static TinyModel bigExperts(long expertBytes) {
    int layers = 24;
    long slot = 3L * 128 * 1664 / 32 * 34;
    int experts = (int) Math.min(4096, Math.ceilDiv(expertBytes, layers * slot));
    assumeTrue(experts * layers * slot >= expertBytes, "a machine this large needs more layers");
    return new TinyModel(
        "qwen3moe", layers, 128, 4, 2, 128, 0, experts, 2, 1664, 256, GgmlType.Q8_0, GgmlType.Q8_0);
  }

  @Test
  void theRealMoeModelFitsOrIsRefusedBeforeTheEngineStarts() throws Exception {
    Path model = SharedData.resolve("models/tiny-qwen3moe-q8_0.gguf").orElse(null);
    assumeTrue(model != null && Files.isRegularFile(model), SharedData.WHY_NOT);
    HostFacts here = E2e.here();
    Path cfg = config("tiny.yaml", List.of(model), Map.of());
    EngineConfig c = ConfigCodec.read(cfg);

    // it fits: the launch goes ahead with the config's argv, and the engine allocates the plan
    AvailableMemory plenty = new AvailableMemory(here.memoryBytes(), here.memoryBytes(), "test");
    Preflight.Report fits = Preflight.forPlan(c, cfg, new Preflight.Here(here, plenty), Map.of());
    assertTrue(fits.warnings().isEmpty(), fits.checks().toString());
    assertTrue(
        fits.checks().stream().anyMatch(k -> k.name().equals("memory")), fits.checks().toString());
    assertFalse(fits.args().contains("--mem-budget-mb"));
    RefRun run = engine(fits.args(), Map.of());
    assertEquals(0, run.code(), run.text());
    // the pools and the arena as planned (strata-ref's weights and scratch on a real model are
    // the strata-ref plan's own work in progress: not compared here)
    for (String item : PlanText.items(fits.plan())) {
      if (item.startsWith("item=kv ") || item.startsWith("item=arena ")) {
        assertTrue(alloc(run).contains(item), item + " in\n" + run.text());
      }
    }

    // a MiB short of the room it holds: no smaller plan exists for it (above), so it is refused
    long held = LaunchMemory.heldBytes(fits.plan());
    AvailableMemory tight =
        new AvailableMemory(here.memoryBytes(), held + GIB - (1L << 20), "test meminfo");
    assertInstanceOf(
        LaunchMemory.Refused.class,
        LaunchMemory.decide(
            dev.strata.engine.plan.PlanRequest.of(here, fits.model().geometry(), fits.backend())
                .withContext(2048)
                .withKv(fits.kv()),
            fits.plan(),
            tight));

    // the launch and its dry run, in this JVM with the probe's figure replaced: one line, exit 3
    byte[] before = Files.readAllBytes(cfg);
    for (List<String> args :
        List.of(
            List.of("--config", cfg.toString()),
            List.of("--dry-run", "--config", cfg.toString()))) {
      Captured io = new Captured();
      Machine m = Machine.system(env -> HostProbe.probe(env).withAvailable(tight));
      int code =
          LaunchMain.run(
              Io.of(io.out(), io.err(), Map.of("HOME", dir.toString()), false),
              m,
              args.toArray(String[]::new));
      assertEquals(3, code, args + "\n" + io.outText() + io.errText());
      String all = io.outText() + io.errText();
      assertTrue(all.contains("memory: "), all);
      assertTrue(all.contains("less the 1.00 GiB margin, is short of the "), all);
      assertTrue(all.contains("(its arena holds every expert: no smaller arena streams)"), all);
      assertFalse(all.contains("alloc: "), "the engine did not start: " + all);
      assertFalse(all.contains("\tat "), "no stack trace: " + all);
      if (args.size() == 2) {
        List<String> err = io.errText().lines().toList();
        assertEquals(1, err.size(), io.errText());
        assertTrue(err.getFirst().startsWith("strata-launch: memory: "), err.getFirst());
      }
    }
    assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(cfg)), "nothing written");
  }

  /**
   * A config of strata-ref, pinned (a plan asks only a pinned library for its check), streaming the
   * experts at ctx 2048 on one thread, with {@code env}.
   */
  private Path config(String name, List<Path> shards, Map<String, String> env) throws Exception {
    return E2e.config(
        dir.resolve(name),
        E2e.refLibrary(),
        E2e.pin(E2e.refLibrary()),
        shards,
        2048,
        List.of("--experts", "stream", "--threads", "1"),
        env);
  }

  /** The engine's {@code alloc:} items ({@code item=NAME bytes=N}), in the order it logged them. */
  private static List<String> alloc(RefRun run) {
    return run.lines().stream()
        .filter(l -> l.startsWith("alloc: "))
        .map(l -> l.substring("alloc: ".length()))
        .toList();
  }

  /** The sum of the engine's {@code alloc:} bytes. */
  private static long allocated(RefRun run) {
    return alloc(run).stream()
        .mapToLong(a -> Long.parseLong(a.substring(a.indexOf("bytes=") + "bytes=".length())))
        .sum();
  }

  private static Matcher find(RefRun run, Pattern p) {
    return RefRun.find(run.lines(), p, "\n" + run.text());
  }

  /**
   * strata-ref's {@code main} on a launch's engine argv {@code args} ({@code --model FILE …}, as
   * preflight gives it), a short run, with the config's {@code env} and no other STRATA_* variable.
   */
  private static RefRun engine(List<String> args, Map<String, String> env) throws Exception {
    assertEquals("--model", args.getFirst(), args.toString());
    List<String> rest = new ArrayList<>(args.subList(2, args.size()));
    rest.addAll(List.of("--prompt-tokens", "8", "--n-predict", "2"));
    return RefRun.of("run", Path.of(args.get(1)), rest, env);
  }
}
