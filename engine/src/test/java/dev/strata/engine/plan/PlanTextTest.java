package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.mac;
import static dev.strata.engine.plan.Fixtures.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strata.engine.Backend;
import dev.strata.engine.kv.KvDecision;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.text.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanTextTest {
  private static MemoryPlan streamOn16() {
    return MemoryPlan.compute(
        PlanRequest.of(mac(16), seed(), Backend.METAL)
            .withContext(32_768)
            .withExperts(ExpertsMode.STREAM)
            .withPools(KvFormat.INT8));
  }

  private static MemoryPlan residentOn16WithFp16() {
    KvDecision.Accepted fp16 =
        (KvDecision.Accepted) KvRules.decide(Backend.METAL, KvFormat.FP16, Map.of());
    return MemoryPlan.compute(
        PlanRequest.of(mac(16), seed(), Backend.METAL)
            .withContext(32_768)
            .withExperts(ExpertsMode.RESIDENT)
            .withKv(fp16));
  }

  @Test
  void tableOfA16GibStreamPlan() {
    assertEquals(
        """
        memory plan: metal, experts stream, context 32768, KV int8
          item                    GiB           bytes  detail
          host memory           16.00  17,179,869,184
          usable by the engine  10.67  11,453,246,122  macOS GPU working set: 2/3 of memory (<= 36 GiB)
          safety margin          1.00   1,073,741,824  kept free (llama.cpp --fit-target default)
          budget                 9.67  10,379,504,298  usable - margin
          dense weights          2.50   2,684,354,560  every non-expert tensor
          recurrent state        0.00               0  no recurrent layer
          KV pools               0.39     416,858,112  int8: 32,896 cells x 1,056 B x 12 QSA layers
          prompt-GEMM stand-by   0.44     467,140,608  576 slots x 811,008 B (prompt-GEMM chain on)
          page-cache headroom    2.00   2,147,483,648  max(2 GiB, memory / 8)
          expert arena           4.34   4,663,296,000  5,750 of 24,576 slots x 811,008 B; one token uses 480
          free                   0.00         371,370  less than one expert slot: the arena takes the rest of the budget on purpose
        result: fits
        expected reads: 284.4 MiB (298,203,840 B) per decoded token: 367.70 of 480 expert lookups miss (lru, uniform routing: every expert equally likely)
        """,
        PlanText.table(streamOn16()));
  }

  @Test
  void tableOfARefusedPlanEndsWithTheRefusalAndTheKvNotes() {
    String t = PlanText.table(residentOn16WithFp16());
    List<String> lines = t.lines().toList();
    assertEquals(
        "result: does not fit: " + residentOn16WithFp16().refusal(), lines.get(lines.size() - 3));
    assertEquals("notes:", lines.get(lines.size() - 2));
    assertEquals("  - " + KvRules.FP16_ON_METAL_NOTE, lines.getLast());
    // columns stay aligned with a negative "free"
    int end = lines.get(1).indexOf("GiB") + 3;
    for (String row : lines.subList(2, 12)) {
      assertTrue(row.charAt(end - 1) != ' ' && row.charAt(end) == ' ', row);
    }
  }

  @Test
  void jsonHasEveryFigureInAFixedOrder() throws Exception {
    String json = PlanText.json(residentOn16WithFp16());
    assertEquals(json, PlanText.json(residentOn16WithFp16()), "deterministic");
    assertTrue(json.chars().allMatch(c -> c < 0x80), "ASCII only");
    JsonNode n = new ObjectMapper().readTree(json);
    List<String> keys = new ArrayList<>();
    n.fieldNames().forEachRemaining(keys::add);
    assertEquals(
        List.of(
            "backend",
            "experts",
            "context",
            "memory",
            "margin_bytes",
            "budget_bytes",
            "dense_bytes",
            "state_bytes",
            "drafter_bytes",
            "kv",
            "standby",
            "page_cache_headroom_bytes",
            "arena",
            "free_bytes",
            "fits",
            "shortfall_bytes",
            "refusal",
            "notes"),
        keys);
    assertEquals("resident", n.get("experts").asText());
    assertEquals(11_453_246_122L, n.get("memory").get("usable_bytes").asLong());
    assertEquals("two_thirds", n.get("memory").get("rule").asText());
    assertEquals(416_858_112L, n.get("kv").get("bytes").asLong());
    assertEquals("int8", n.get("kv").get("format").asText());
    assertEquals(0, n.get("standby").get("slots").asInt());
    assertEquals(19_931_332_608L, n.get("arena").get("bytes").asLong());
    assertEquals(false, n.get("fits").asBoolean());
    assertEquals(residentOn16WithFp16().refusal(), n.get("refusal").asText());
    assertEquals(KvRules.FP16_ON_METAL_NOTE, n.get("notes").get(0).asText());

    JsonNode ok = new ObjectMapper().readTree(PlanText.json(streamOn16()));
    assertTrue(ok.get("refusal").isNull());
    assertEquals(576, ok.get("standby").get("slots").asInt());
    assertEquals(5_750, ok.get("arena").get("slots").asLong());
    assertTrue(ok.get("notes").isEmpty());
  }

  @Test
  void jsonStringsAreEscapedAndAsciiOnly() {
    assertEquals(
        "\"a\\\"b\\\\c\\nd\\u00E9\"\n", Json.write(true, g -> g.writeString("a\"b\\c\nd\u00e9")));
  }

  /** Every row name any plan shows (stream and resident, fitting or not) is in the glossary. */
  @Test
  void everyRowHasAGlossaryEntry() {
    List<MemoryPlan> plans = new ArrayList<>();
    for (long gib : new long[] {8, 16, 48, 128}) {
      for (ExpertsMode mode : ExpertsMode.values()) {
        for (Backend b : new Backend[] {Backend.METAL, Backend.CPU_REFERENCE}) {
          plans.add(
              MemoryPlan.compute(
                  PlanRequest.of(mac(gib), seed(), b)
                      .withContext(32_768)
                      .withExperts(mode)
                      .withPools(KvFormat.INT8)));
        }
      }
    }
    for (MemoryPlan p : plans) {
      String[] lines = PlanText.table(p).split("\n");
      int detail = lines[1].indexOf("GiB");
      for (int i = 2; i < lines.length && lines[i].startsWith("  "); i++) {
        String name = lines[i].substring(2, detail).strip();
        // the name column ends where the right-aligned GiB column starts
        name = name.replaceAll("\\s+-?[0-9.]+$", "");
        assertTrue(PlanText.GLOSSARY.containsKey(name), "no glossary entry for '" + name + "'");
      }
    }
    String g = PlanText.glossaryText(60);
    for (String line : g.split("\n")) {
      assertTrue(line.length() <= 60, "wrapped to 60: " + line);
    }
  }

  /** At 60 columns every line fits, never split mid-word; the words are those of the wide table. */
  @Test
  void aNarrowTableWrapsTheDetailUnderItsColumn() {
    String wide = PlanText.table(streamOn16());
    String narrow = PlanText.table(streamOn16(), 60);
    assertEquals(
        wide.replaceAll("\\s+", " "), narrow.replaceAll("\\s+", " "), "same words, same order");
    for (String line : narrow.split("\n")) {
      // only a word longer than the room left may pass the width
      assertTrue(line.length() <= 60 || line.strip().indexOf(' ') < 0, line);
    }
  }
}
