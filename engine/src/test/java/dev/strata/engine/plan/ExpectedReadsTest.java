package dev.strata.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The expected-reads rule (docs/PLAN.md "Expected reads") on figures worked by hand. */
class ExpectedReadsTest {
  private static final String HEAD =
      "# strata-ref router trace 1: experts=4 used=1 moe_layers=1 slots=0 policy=lru mode=resident";

  @Test
  void uniformRoutingIsKTimesLTimesTheShareOutsideTheArena() {
    // 16 lookups per token over 64 slots, 25 held: 16 x 39/64 = 9.75 misses, x 313,344 B
    ExpectedReads r = ExpectedReads.of(new ExpertArena(313_344, 25, 64, 16, 0), "lru", null);
    assertEquals(ExpectedReads.Basis.UNIFORM, r.basis());
    assertEquals(9.75, r.missesPerToken(), 1e-12);
    assertEquals(Math.round(9.75 * 313_344), r.bytesPerToken());
    ExpectedReads all = ExpectedReads.of(new ExpertArena(10, 64, 64, 16, 0), "lfu", null);
    assertEquals(ExpectedReads.Basis.EVERY_EXPERT, all.basis());
    assertEquals(0, all.bytesPerToken());
  }

  @Test
  void lruReplayCountsTheDecodeMissesOfTheEnginesLru() {
    // prompt 0,1,2 at 2 slots -> {1,2}; decode 0 miss {2,0}, 0 hit, 3 miss {0,3}, 0 hit, 1 miss
    List<String> t = new ArrayList<>(List.of(HEAD, "l 0 3 0 1 2"));
    for (int e : new int[] {0, 0, 3, 0, 1}) {
      t.add("l 0 1 " + e);
    }
    RoutingProfile p = RoutingProfile.parse("t", t, "t");
    assertEquals(3 / 5.0, ExpectedReads.lruReplay(p, 2), 1e-12);
    // one slot: 0 hits once (0 then 0), every other decode lookup misses
    assertEquals(4 / 5.0, ExpectedReads.lruReplay(p, 1), 1e-12);
  }

  @Test
  void lfuReplayCountsTheDecodeMissesOfTheEnginesLfu() {
    // prompt: one batched call looking up 0,1,2 (counts 1 each); decode: 0,0,3,0,1 at 2 slots.
    // prompt: 0 miss, 1 miss, 2 miss evicts 0 (count 1, oldest) -> {1,2}
    // decode 0: miss, evicts 1 (count 1, older than 2) -> {2,0}; 0 again: hit (0 has 3)
    // 3: miss, evicts 2 (count 1) -> {0,3}; 0: hit; 1: miss (count 2) evicts 3 (count 1)
    List<String> t = new ArrayList<>(List.of(HEAD, "l 0 3 0 1 2"));
    for (int e : new int[] {0, 0, 3, 0, 1}) {
      t.add("l 0 1 " + e);
    }
    RoutingProfile p = RoutingProfile.parse("t", t, "t");
    assertEquals(5, p.decodeTokens());
    assertEquals(3 / 5.0, ExpectedReads.lfuReplay(p, 2), 1e-12);
    ExpectedReads r = ExpectedReads.of(new ExpertArena(100, 2, 4, 1, 200), "lfu", p);
    assertEquals(ExpectedReads.Basis.PROFILE, r.basis());
    assertEquals(60, r.bytesPerToken());
  }

  @Test
  void aBadTraceIsOneLineNamingTheFileAndLine() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RoutingProfile.parse("f", List.of(HEAD, "l 0 1 0", "l 0 1 9"), "trace.txt"));
    assertTrue(e.getMessage().startsWith("trace.txt:3: expert '9' outside 0..3"), e.getMessage());
    assertTrue(e.getMessage().contains("STRATA_ARENA_TRACE"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> RoutingProfile.parse("f", List.of("# something else"), "x"));
  }

  @Test
  void aPlanUsesATraceOfItsGeometryAndSaysWhyItDropsAnother() {
    PlanRequest seed =
        PlanRequest.of(Fixtures.mac(16), Fixtures.seed(), dev.strata.engine.Backend.METAL)
            .withContext(32_768);
    MemoryPlan other =
        MemoryPlan.compute(
            seed.withRouting(RoutingProfile.parse("t.trace", List.of(HEAD, "l 0 1 0"), "t")));
    assertEquals(ExpectedReads.Basis.UNIFORM, other.reads().basis());
    assertTrue(
        other
            .notes()
            .contains(
                "routing: t.trace was recorded on a model of 4 experts x 1 MoE layers, 1 used, not"
                    + " this one's: expected reads from uniform routing"),
        other.notes().toString());
    // the seed's geometry: 512 experts x 48 MoE layers, 10 used; one batched prompt call per layer
    // (experts 0-19), then two decoded tokens choosing experts 0-9 (hits) and 20-29 (misses)
    List<String> t =
        new ArrayList<>(
            List.of(
                "# strata-ref router trace 1: experts=512 used=10 moe_layers=48 slots=0"
                    + " policy=lru mode=resident"));
    String first = "0,1,2,3,4,5,6,7,8,9", second = "10,11,12,13,14,15,16,17,18,19";
    for (int l = 0; l < 48; l++) {
      t.add("l " + l + " 2 " + first + " " + second);
    }
    for (String token : List.of(first, "20,21,22,23,24,25,26,27,28,29")) {
      for (int l = 0; l < 48; l++) {
        t.add("l " + l + " 1 " + token);
      }
    }
    MemoryPlan mine = MemoryPlan.compute(seed.withRouting(RoutingProfile.parse("s.trace", t, "s")));
    assertEquals(ExpectedReads.Basis.PROFILE, mine.reads().basis());
    assertEquals(240, mine.reads().missesPerToken(), 1e-12); // 480 cold misses over 2 tokens
    assertTrue(
        PlanText.table(mine)
            .contains(
                "expected reads: 185.6 MiB (194,641,920 B) per decoded token: 240.00 of 480 expert"
                    + " lookups miss (lru, the routing recorded in s.trace replayed)"),
        PlanText.table(mine));
  }

  @Test
  void thePolicyIsTheEnginesSwitch() {
    assertEquals("lfu", ExpectedReads.policy(Map.of("STRATA_ARENA_POLICY", "lfu")));
    assertEquals("lru", ExpectedReads.policy(Map.of()));
  }
}
