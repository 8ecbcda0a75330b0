package dev.strata.engine.flags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * "Did you mean": the rule {@link Suggest#nearest} documents (a word begun means the one known word
 * it begins; else at most 2 edits, 1 for words of 3 letters or fewer, an adjacent swap is one edit,
 * case-blind, '_' and '-' alike), and the optimal-string-alignment distance it rests on, checked
 * against distances worked out by hand.
 */
class SuggestTest {

  /**
   * Insertions, deletions, substitutions, adjacent swaps, and OSA's one departure from
   * Damerau-Levenshtein (ca -> abc is 3, not 2: a swapped pair is not edited again).
   */
  @ParameterizedTest(name = "[{0}] -> [{1}]: {2}")
  @CsvSource({
    "'', '', 0",
    "'', 'abc', 3",
    "'abc', '', 3",
    "'abc', 'abc', 0",
    "'kitten', 'sitting', 3",
    "'flaw', 'lawn', 2",
    "'ab', 'ba', 1",
    "'abcd', 'acbd', 1",
    "'abcdef', 'badcfe', 3",
    "'ca', 'abc', 3",
    "'xyz', 'z', 2",
    "'z', 'xyz', 2",
    "'ctx-size', 'ctx-szie', 1"
  })
  void distanceIsOptimalStringAlignment(String a, String b, int distance) {
    assertEquals(distance, Suggest.distance(a, b), a + " -> " + b);
  }

  @Test
  void nearestAllowsTwoEditsForLongWordsAndOneForShortOnes() {
    List<String> known = List.of("--ctx-size", "--threads", "--kv");
    assertEquals("--ctx-size", Suggest.nearest("--ctx-szie", known)); // a swap is one edit
    assertEquals("--ctx-size", Suggest.nearest("--CTX-SIZ", known)); // case-blind, one deletion
    assertEquals("--threads", Suggest.nearest("--thraeds", known));
    assertEquals("--threads", Suggest.nearest("--thread", known));
    assertEquals("--threads", Suggest.nearest("--treds", known)); // exactly two edits: still near
    assertNull(Suggest.nearest("--tds", List.of("--threads"))); // four edits
    // a 4-letter word: two edits are near; a 3-letter one: only one
    assertEquals("fp16", Suggest.nearest("fb17", List.of("fp16", "q4_0")));
    assertEquals("int", Suggest.nearest("inx", List.of("int")));
    assertNull(Suggest.nearest("ixx", List.of("int")));
    assertNull(Suggest.nearest("ab", List.of("abcd"))); // shorter side has 2 letters: 1 edit
    assertNull(Suggest.nearest("t", List.of("xyt")));
    assertNull(Suggest.nearest("--model", List.of()));
  }

  @Test
  void aOneLetterOptionIsNotMatchedToAnotherOneLetterOption() {
    List<String> known = List.of("-h", "-V", "-c", "--config", "--threads");
    assertNull(Suggest.nearest("-b", known), "-b is one edit from -h and -c alike");
    assertNull(Suggest.nearest("-x", known));
    assertEquals("-V", Suggest.nearest("-v", known)); // case-blind: the same letter
    assertEquals("--threads", Suggest.nearest("-t", known)); // llama.cpp's -t
    assertEquals("", Suggest.didYouMean("-m", List.of("-h", "-c")));
  }

  @Test
  void aTieGoesToTheFirstKnownWordAndTheKnownSpellingIsReturned() {
    assertEquals("Q4_0", Suggest.nearest("q4_1", List.of("Q4_0", "q4_2")));
    assertEquals("q4_2", Suggest.nearest("q4_1", List.of("q4_2", "Q4_0")));
  }

  @Test
  void aWordBegunMeansTheOneKnownWordItBegins() {
    List<String> known = List.of("--model", "--mlock", "--ctx-size", "--ctx-shift");
    assertEquals("--model", Suggest.nearest("--mod", known)); // 3 letters after the dashes
    assertNull(Suggest.nearest("--ctx-s", known)); // begins two: no guess by prefix, 3+ edits
    assertNull(Suggest.nearest("--mo", known)); // 2 letters are no prefix; 3 edits from --model
    assertEquals("memory_bytes", Suggest.nearest("memory", List.of("memory_bytes", "metal4")));
  }

  @Test
  void underscoreAndDashReadAlike() {
    assertEquals("q4_0", Suggest.nearest("q4-0", List.of("q8_0", "q4_0")));
    // whole parts of one word, however short: q4 for q4_0 (--kv's values)
    List<String> kv = List.of("fp16", "int8", "q4_0", "k8v4");
    assertEquals("q4_0", Suggest.nearest("q4", kv));
    assertEquals("q4_0", Suggest.nearest("Q4", kv));
    assertNull(Suggest.nearest("q", kv), "a letter is no part");
    assertNull(Suggest.nearest("k8", kv), "k8v4 has no part k8");
    assertNull(Suggest.nearest("q4", List.of("q4_0", "q4_1")), "two words begin so");
    // a word known as typed (case-blind) is itself, even when it begins another
    assertEquals("--kv", Suggest.nearest("--KV", List.of("--kv-resident", "--kv")));
    assertEquals(" (did you mean q4_0?)", Suggest.didYouMean("q4", kv));
    assertEquals("--ctx-size", Suggest.nearest("--ctx_size", List.of("--model", "--ctx-size")));
    assertEquals("os_version", Suggest.nearest("OS-VERSION", List.of("os", "os_version")));
  }

  @Test
  void llamaCppsSpellingMeansOursWhereOursIsKnown() {
    List<String> ours = List.of("--model", "--ctx", "--threads", "--kv", "--spec");
    assertEquals("--ctx", Suggest.nearest("--ctx-size", ours)); // 5 edits: not found by distance
    assertEquals("--ctx", Suggest.nearest("-c", ours));
    assertEquals("--ctx", Suggest.nearest("--CTX_SIZE", ours));
    assertEquals("--kv", Suggest.nearest("--cache-type-k", ours));
    assertEquals("--spec", Suggest.nearest("--draft-max", ours));
    assertEquals("--threads", Suggest.nearest("-t", ours));
    assertNull(Suggest.nearest("--ctx-size", List.of("--model", "--threads")), "no --ctx here");
    assertNull(Suggest.nearest("-n", ours), "--n-predict is not one of these");
    // every alias names one of the engine's flags or the launcher's options
    for (String target : Suggest.LLAMA_CPP.values()) {
      assertTrue(target.startsWith("--"), target);
    }
  }

  @Test
  void longJunkIsNeverNear() {
    String junk = "x".repeat(10_000);
    assertNull(Suggest.nearest(junk, List.of("--model", "--ctx-size")));
    assertNull(Suggest.nearest("--model" + "y".repeat(9), List.of("--model")));
  }
}
