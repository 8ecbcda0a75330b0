package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.linux;
import static dev.strata.engine.plan.Fixtures.mac;
import static dev.strata.engine.plan.Fixtures.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strata.engine.Backend;
import dev.strata.engine.text.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where the plan's text wraps (a detail wraps at spaces under its own column; with less than 20
 * columns beside it, on lines of its own indented by 4; below 24 columns not at all), checked at
 * each edge on lines worked out by hand, and the JSON with every figure.
 */
class PlanTextWrapTest {

  /** The "budget" entry of the glossary: its name padded to 20, then its meaning. */
  private static List<String> budgetEntry(int width) {
    List<String> lines = PlanText.glossaryText(width).lines().toList();
    int at = lines.indexOf(lines.stream().filter(l -> l.startsWith("  budget")).findFirst().get());
    int end = at + 1;
    while (end < lines.size() && lines.get(end).startsWith("   ")) {
      end++;
    }
    return lines.subList(at, end);
  }

  @Test
  void theGlossaryOnOneLineAnEntryWhenNotWrapped() {
    String g = PlanText.glossaryText(Integer.MAX_VALUE);
    assertTrue(
        g.startsWith("plan rows:\n  host memory           the machine's physical memory"), g);
    assertEquals(1 + PlanText.GLOSSARY.size(), g.lines().count());
    assertEquals(
        List.of("  budget                usable minus the margin: everything below must fit in it"),
        budgetEntry(Integer.MAX_VALUE));
  }

  /**
   * 44 columns leave 20 beside the 24-column name: wrapped there, a line may end exactly at the
   * width ("below must fit in it" is 20 characters).
   */
  @Test
  void twentyColumnsBesideTheNameWrapUnderIt() {
    String pad = " ".repeat(24);
    assertEquals(
        List.of(
            "  budget                usable minus the",
            pad + "margin: everything",
            pad + "below must fit in it"),
        budgetEntry(44));
  }

  @Test
  void nineteenColumnsPutTheMeaningOnLinesOfItsOwn() {
    assertEquals(
        List.of("  budget", "    usable minus the margin: everything", "    below must fit in it"),
        budgetEntry(43));
    // 24 columns: 20 beside the 4-column indent
    assertEquals(
        List.of(
            "  budget",
            "    usable minus the",
            "    margin: everything",
            "    below must fit in it"),
        budgetEntry(24));
  }

  @Test
  void belowTwentyFourColumnsNothingWraps() {
    assertEquals(budgetEntry(Integer.MAX_VALUE), budgetEntry(23));
    assertEquals(budgetEntry(Integer.MAX_VALUE), budgetEntry(1));
  }

  /**
   * A table row's name and figures take 47 columns; "usable - margin" (15) beside them needs 62. At
   * 61 it goes on a line of its own.
   */
  @Test
  void aDetailThatJustFitsStaysBesideItsFigures() {
    MemoryPlan p =
        MemoryPlan.compute(PlanRequest.of(mac(16), seed(), Backend.METAL).withContext(32_768));
    String figures = "  budget                 9.67  10,379,504,298";
    assertTrue(PlanText.table(p, 62).contains("\n" + figures + "  usable - margin\n"));
    assertTrue(PlanText.table(p, 61).contains("\n" + figures + "\n    usable - margin\n"));
  }

  /**
   * The 16 GiB Metal stream plan (PlanTextTest's table) as JSON, every figure in its place: usable
   * 2/3 of 16 GiB, budget usable - 1 GiB, KV 32,896 × 1,056 × 12, 576 stand-by slots of 811,008 B,
   * 2 GiB headroom, and 5,750 slots in the 4,663,667,370 B left (371,370 B free).
   */
  @Test
  void jsonOfA16GibStreamPlan() {
    MemoryPlan p =
        MemoryPlan.compute(PlanRequest.of(mac(16), seed(), Backend.METAL).withContext(32_768));
    String want =
        """
        {"backend":"metal","experts":"stream","context":32768,
         "memory":{"total_bytes":17179869184,"usable_bytes":11453246122,"rule":"two_thirds",
                   "rule_text":"macOS GPU working set: 2/3 of memory (<= 36 GiB)"},
         "margin_bytes":1073741824,"budget_bytes":10379504298,"dense_bytes":2684354560,
         "state_bytes":0,"drafter_bytes":0,
         "kv":{"format":"int8","cells":32896,"cell_bytes":1056,"layers":12,"swa_layers":0,
               "swa_cells":0,"drafter_layers":0,"bytes":416858112},
         "standby":{"prompt_gemm":true,"slots":576,"bytes":467140608,
                    "reason":"prompt-GEMM chain on"},
         "page_cache_headroom_bytes":2147483648,
         "arena":{"slot_bytes":811008,"slots":5750,"model_slots":24576,"token_slots":480,
                  "bytes":4663296000},
         "free_bytes":371370,"fits":true,"shortfall_bytes":0,"refusal":null,
         "expected_reads":{"policy":"lru","basis":"uniform","source":null,"slots":5750,
         "lookups_per_token":480,"misses_per_token":367.6953,"bytes_per_token":298203840},
         "notes":[]}
        """;
    assertEquals(want.replaceAll("\\s+", ""), PlanText.json(p).replaceAll("\\s+", ""));
  }

  /** strata-ref's plan also says its scratch (RefScratchTest: 4,018,176 B), after the arena. */
  @Test
  void jsonOfAStrataRefPlanHasItsScratch() {
    MemoryPlan p =
        MemoryPlan.compute(
            PlanRequest.of(linux(48), seed(), Backend.CPU_REFERENCE).withContext(32_768));
    String json = PlanText.json(p).replaceAll("\\s+", "");
    assertTrue(
        json.contains(
            "\"bytes\":19931332608},\"scratch_bytes\":6377472,\"free_bytes\":"
                + (47L * Fixtures.GIB - 2_684_354_560L - 416_858_112L - 6_377_472 - 19_931_332_608L)
                + ","),
        json);
    assertTrue(json.contains("\"notes\":[\"experts:thestreamarenaholdseveryexpert"), json);
  }

  /**
   * A detail that is one word exactly as wide as the room beside its figures stays there: the
   * wired-limit rule's "iogpu.wired_limit_mb" (20 characters) at 67 columns (47 + 20).
   */
  @Test
  void aOneWordDetailThatFillsTheRoomStaysBesideItsFigures() {
    MemoryPlan p =
        MemoryPlan.compute(
            PlanRequest.of(mac(16, 14_336, false), seed(), Backend.METAL).withContext(32_768));
    assertTrue(
        PlanText.table(p, 67)
            .contains("\n  usable by the engine  14.00  15,032,385,536  iogpu.wired_limit_mb\n"),
        PlanText.table(p, 67));
  }

  /** A larger document embeds the plan as one object and goes on after it. */
  @Test
  void theJsonObjectClosesWhereItEnds() throws Exception {
    MemoryPlan p =
        MemoryPlan.compute(PlanRequest.of(mac(16), seed(), Backend.METAL).withContext(32_768));
    String doc =
        Json.write(
            true,
            g -> {
              g.writeStartObject();
              g.writeFieldName("plan");
              PlanText.writeJson(p, g);
              g.writeNumberField("after", 1);
              g.writeEndObject();
            });
    JsonNode n = new ObjectMapper().readTree(doc);
    assertEquals(List.of("plan", "after"), List.copyOf(iterable(n.fieldNames())));
    assertEquals(1, n.get("after").asInt());
    assertTrue(n.get("plan").get("fits").asBoolean());
  }

  private static List<String> iterable(java.util.Iterator<String> it) {
    List<String> out = new java.util.ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }
}
