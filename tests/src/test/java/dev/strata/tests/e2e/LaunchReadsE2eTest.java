package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A launch says its decode's expert reads beside the plan's expectation (docs/PLAN.md "Expected
 * reads"): the shared tiny qwen3moe Q8_0 under a {@code --mem-budget-mb} that leaves the plan's
 * arena one token's experts (16 of 64 slots; the plan's stand-by and page-cache headroom counted,
 * as the engine counts them), so the experts stream; stderr gets the {@code reads:} line and {@code
 * --json} its {@code reads} object, the expectation the plan's (uniform routing: 16 × (1 − 16/64)
 * misses × 313,344 B) and the measurement the engine's {@code arena:} decode figures.
 */
class LaunchReadsE2eTest {
  @TempDir Path dir;

  @Test
  void aStreamedLaunchSaysItsReadsBesideThePlansExpectation() throws Exception {
    Path model = ArenaRuns.tinyMoe();
    HostFacts here = E2e.here();
    ModelGeometry g = GgufReader.readModel(model).geometry();
    MemoryPlan open =
        MemoryPlan.compute(PlanRequest.of(here, g, Backend.CPU_REFERENCE).withContext(512));
    long tokenSlots = open.arena().tokenSlots(), slot = open.arena().slotBytes();
    Map<String, String> bare = Map.of("STRATA_ARENA_BARE", "1");
    long fixed = MemoryPlan.streamingFixedBytes(open, g, bare, here);
    long budgetMb = ArenaRuns.budgetMb(fixed, tokenSlots + 9, slot);
    Path d = E2e.privateDir(dir.resolve("c"));
    Path cfg =
        E2e.config(
            d.resolve("c.yaml"),
            E2e.refLibrary(),
            null,
            List.of(model),
            512,
            List.of("--prompt-tokens", "32", "--n-predict", "32", "--mem-budget-mb", "" + budgetMb),
            Map.of());
    // its own JVM: the switch must be in the process environment the in-process engine reads
    ProcessBuilder pb =
        E2e.launcherProcess(List.of("--config", cfg.toString(), "--json"))
            .redirectError(dir.resolve("err.txt").toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("STRATA_"));
    pb.environment().put("HOME", dir.toString());
    pb.environment().put("STRATA_ARENA_BARE", "1");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), "strata-launch finished");
    String err = Files.readString(dir.resolve("err.txt"));
    assertEquals(0, p.exitValue(), err);
    JsonNode j = new ObjectMapper().readTree(out);
    JsonNode reads = j.get("reads"), arena = j.get("arena");
    assertTrue(reads != null, out);
    assertEquals("uniform", reads.get("basis").asText());
    long c = arena.get("slots").asLong();
    assertTrue(c >= tokenSlots + 9 && c < tokenSlots + 13, "a partial arena: " + arena);
    assertEquals(c, j.get("plan").get("arena").get("slots").asLong(), "the plan's slots");
    assertEquals(
        Math.round(tokenSlots * (1 - c / 64.0) * slot),
        reads.get("expected_bytes_per_token").asLong());
    assertEquals(
        j.get("plan").get("expected_reads").get("bytes_per_token").asLong(),
        reads.get("expected_bytes_per_token").asLong());
    long measured =
        Math.round(arena.get("decode_read_bytes").asDouble() / arena.get("decode_tokens").asLong());
    assertEquals(measured, reads.get("measured_bytes_per_token").asLong());
    assertTrue(measured > 0, arena.toString());
    assertTrue(
        err.lines().anyMatch(l -> l.startsWith("reads: ") && l.contains("the plan expected")), err);
  }
}
