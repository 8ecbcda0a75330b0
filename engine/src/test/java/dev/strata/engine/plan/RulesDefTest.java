package dev.strata.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * rules.def carries the Java values themselves (the engine side is RulesParityTest, which asks the
 * compiled engine): a figure or a word edited here is the one the build hands to strata-ref.
 */
class RulesDefTest {
  static final String DEF = RulesDef.render();

  private static String define(String name) {
    var m = Pattern.compile("(?m)^#define " + name + " (.*)$").matcher(DEF);
    assertTrue(m.find(), name + " missing");
    return m.group(1);
  }

  @Test
  void theFiguresAreTheJavaConstants() {
    assertEquals(Integer.toString(KvFormat.EXTRA_CELLS), define("STRATA_KV_EXTRA_CELLS"));
    assertEquals(MemoryPlan.SAFETY_MARGIN + "ull", define("STRATA_PLAN_MARGIN_BYTES"));
    assertEquals(UsableMemory.MIB + "ull", define("STRATA_MEM_BUDGET_UNIT_BYTES"));
    assertEquals(
        Integer.toString(StandbySlots.WITH_PROMPT_GEMM), define("STRATA_STANDBY_WITH_GEMM"));
    assertEquals(
        Integer.toString(StandbySlots.WITHOUT_PROMPT_GEMM), define("STRATA_STANDBY_WITHOUT_GEMM"));
    assertEquals(StreamSizing.HEADROOM_MIN + "ull", define("STRATA_HEADROOM_MIN_BYTES"));
    assertEquals(Long.toString(RefScratch.BATCH), define("STRATA_BATCH"));
    assertEquals(
        Long.toString(RefScratch.BOOK_BYTES_PER_SLOT), define("STRATA_BOOK_BYTES_PER_SLOT"));
    assertEquals("\" \\t\\n\\v\\f\\r\"", define("STRATA_SWITCH_BLANKS"));
    assertEquals(KvRules.SWITCH_BLANKS.length(), 6);
  }

  @Test
  void theFiguresFormatsAreByteSizesAndUnits() {
    assertEquals("{" + (1L << 30) + "ull, 2, 0}", define("STRATA_FIGURE_GIB"));
    assertEquals("{" + (1L << 30) + "ull, 1, 1}", define("STRATA_FIGURE_GIB_UP"));
    assertEquals("','", define("STRATA_COUNT_SEPARATOR"));
    assertEquals("3", define("STRATA_COUNT_GROUP"));
    assertEquals(
        "{{\"KiB\", {1024ull, 1, 0}}, {\"MiB\", {1048576ull, 1, 0}}, {\"GiB\", {"
            + (1L << 30)
            + "ull, 2, 0}}, {\"TiB\", {"
            + (1L << 40)
            + "ull, 2, 0}}}",
        define("STRATA_IEC_UNITS"));
  }

  @Test
  void theItemNamesAndExitCodesAreTheJavaOnes() {
    assertEquals(
        "{\"weights\", \"kv\", \"ssm_state\", \"standby\", \"arena\", \"scratch\"}",
        define("STRATA_PLAN_ITEM_NAMES"));
    assertEquals(Integer.toString(PlanText.ITEM_NAMES.size()), define("STRATA_PLAN_N_ITEMS"));
    assertEquals(
        Integer.toString(dev.strata.engine.ExitCodes.PREFLIGHT), define("STRATA_EXIT_PREFLIGHT"));
    assertEquals(Integer.toString(dev.strata.engine.ExitCodes.USAGE), define("STRATA_EXIT_USAGE"));
  }

  @Test
  void theKvDecisionHasARowPerFormatAndSwitchState() {
    long rows = DEF.lines().filter(l -> l.startsWith("    {")).count();
    assertEquals(2L * (KvFormat.values().length + 1), rows);
    assertTrue(DEF.contains("{-1, 1, 1, NULL}"), "no --kv: int8 pools, the switch or not");
    assertTrue(DEF.contains("{3, 0, -1, \"" + KvRules.K8V4_REFUSAL + "\"}"));
    assertTrue(DEF.contains("{1, 1, -1, \"" + KvRules.KV_ROT_INT8_REFUSAL + "\"}"));
    // strata-ref's fp16 pools are real fp16: requested 0 → pools 0
    assertTrue(DEF.contains("{0, 0, 0, NULL}"));
  }

  @Test
  void everyWordIsTheJavaTemplate() {
    assertEquals('"' + PlanWords.STREAM_REFUSAL + '"', define("STRATA_WORDS_STREAM_REFUSAL"));
    assertEquals('"' + PlanWords.RESIDENT_REFUSAL + '"', define("STRATA_WORDS_RESIDENT_REFUSAL"));
    assertEquals(
        '"' + dev.strata.engine.flags.PoolRule.WORDS + '"', define("STRATA_WORDS_POOL_EXCEEDED"));
    assertEquals('"' + KvPlanRules.CANNOT_HOLD + '"', define("STRATA_WORDS_KV_CANNOT_HOLD"));
    assertEquals('"' + RefLimits.WORDS + '"', define("STRATA_WORDS_REF_LIMITS"));
    assertEquals(
        "\"--parallel %s holds %s sequences' KV pools, %s \\303\\227 %s = %s\"",
        define("STRATA_WORDS_PARALLEL_WEIGH"));
    // the plan's 16 templates and terms, the 4 of --parallel, the --spec note, KvPlanRules' 8
    // words, RefLimits' one
    long words = DEF.lines().filter(l -> l.startsWith("#define STRATA_WORDS_")).count();
    assertEquals(30, words);
  }

  @Test
  void aCLiteralEscapesTheBlanksAndRefusesOtherControls() {
    assertEquals("\"a\\\"b\\\\c\\t\"", RulesDef.quote("a\"b\\c\t"));
    assertThrows(IllegalStateException.class, () -> RulesDef.quote("\u0001"));
    // past ASCII: its UTF-8 bytes in octal, so "×" then a digit stays two characters in C
    assertEquals("\"\\303\\2271\"", RulesDef.quote("\u00d71"));
    assertThrows(IllegalStateException.class, () -> RulesDef.quote("\u0085"));
    assertThrows(IllegalStateException.class, () -> RulesDef.quote("\ud83d\ude00"));
  }
}
