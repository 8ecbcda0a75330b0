package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link TensorNames} accepts exactly what the regular expressions it replaced accepted (the
 * patterns below are the ones GeometryRules and ExpertTensors used), and yields the same groups.
 */
class TensorNamesTest {
  static final Pattern BLOCK = Pattern.compile("blk\\.(\\d{1,9})\\.(.+)");
  static final Pattern EXPERT =
      Pattern.compile("(" + String.join("|", ArchTable.EXPERT_TENSORS) + ")\\.(weight|bias|scale)");
  static final Pattern LEGACY_EXPERT =
      Pattern.compile(
          "(" + String.join("|", ArchTable.LEGACY_EXPERT_TENSORS) + ")\\.(\\d{1,6})\\.weight");

  /** Pieces names are built from: real ones, near misses, and what regexes treat specially. */
  static final List<String> PIECES =
      List.of(
          "blk",
          ".",
          "..",
          "0",
          "7",
          "12",
          "007",
          "123456",
          "1234567",
          "123456789",
          "1234567890",
          "\u0661",
          "\uff11",
          "attn_k.weight",
          "ffn_gate_exps",
          "ffn_up_exps",
          "ffn_down_exps",
          "ffn_gate_up_exps",
          "ffn_gate",
          "ffn_up",
          "ffn_down",
          "ffn_gate_inp",
          "weight",
          "bias",
          "scale",
          "weights",
          ".weight",
          "\n",
          "\r",
          "\r\n",
          "\u0085",
          "\u2028",
          "\u2029",
          "\t",
          " ",
          "\uD83D\uDE00",
          "\uD83D",
          "x",
          "BLK",
          "Blk",
          "_exps",
          "E");

  static List<String> corpus() {
    List<String> names = new ArrayList<>();
    for (String a : PIECES) {
      names.add(a);
      for (String b : PIECES) {
        names.add(a + b);
        names.add("blk." + a + "." + b);
        names.add("blk." + a + b);
        names.add(a + "." + b + ".weight");
      }
    }
    Random r = new Random(17);
    for (int i = 0; i < 200_000; i++) {
      StringBuilder s = new StringBuilder(r.nextInt(3) == 0 ? "" : "blk.");
      int n = r.nextInt(6);
      for (int k = 0; k < n; k++) {
        s.append(PIECES.get(r.nextInt(PIECES.size())));
      }
      names.add(s.toString());
    }
    return names;
  }

  @Test
  void blockNamesAsThePattern() {
    int matched = 0;
    for (String name : corpus()) {
      Matcher m = BLOCK.matcher(name);
      int rest = TensorNames.blockRest(name);
      assertEquals(m.matches(), rest >= 0, name);
      if (rest >= 0) {
        matched++;
        assertEquals(Integer.parseInt(m.group(1)), TensorNames.blockLayer(name, rest), name);
        assertEquals(m.group(2), name.substring(rest), name);
      }
    }
    assertTrue(matched > 1000, "the corpus holds block names: " + matched);
  }

  @Test
  void expertAndLegacyExpertNamesAsThePatterns() {
    int experts = 0;
    int legacy = 0;
    List<String> rests = corpus();
    for (String a : PIECES) {
      for (String b : List.of("weight", "bias", "scale", "0.weight", "123456.weight", "x")) {
        rests.add(a + "." + b);
      }
    }
    for (String rest : rests) {
      Matcher m = EXPERT.matcher(rest);
      int name = TensorNames.expertTensor(rest);
      assertEquals(m.matches(), name >= 0, rest);
      if (name >= 0) {
        experts++;
        assertEquals(ArchTable.EXPERT_TENSORS.indexOf(m.group(1)), name, rest);
        assertEquals(m.group(2).equals("weight"), rest.endsWith(".weight"), rest);
      }
      Matcher l = LEGACY_EXPERT.matcher(rest);
      int[] got = TensorNames.legacyExpert(rest);
      assertEquals(l.matches(), got != null, rest);
      if (got != null) {
        legacy++;
        assertArrayEquals(
            new int[] {
              ArchTable.LEGACY_EXPERT_TENSORS.indexOf(l.group(1)), Integer.parseInt(l.group(2))
            },
            got,
            rest);
      }
    }
    assertTrue(experts >= 12 && legacy >= 6, experts + " expert, " + legacy + " legacy names");
  }
}
