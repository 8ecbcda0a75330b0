package dev.strata.tests.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.write.UnifiedDiff;
import dev.strata.tests.golden.GoldenMatrix.Cell;
import dev.strata.tests.golden.GoldenMatrix.Config;
import dev.strata.tests.golden.GoldenMatrix.Outcome;
import dev.strata.tests.golden.GoldenMatrix.Refusal;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/GOLDEN.md, default identity on all 48 cells, not only the three pinned in full: generating
 * with {@code --kv q4_0} gives the default config's text with exactly the two lines {@code - --kv},
 * {@code - q4_0} inserted at the end of the {@code args} block, and no other byte changed. A
 * refused cell is refused under q4_0 too, with the same sentence and advice (its figures are the
 * q4_0 plan's).
 */
class KvQ4InvariantGoldenTest {

  static List<Cell> cells() {
    return GoldenMatrix.cells();
  }

  @ParameterizedTest(name = "{0}: --kv q4_0 appends the pair, nothing else moves")
  @MethodSource("cells")
  void q4AppendsExactlyThePair(Cell cell) {
    Outcome plain = GoldenMatrix.generate(cell, null);
    Outcome q4 = GoldenMatrix.generate(cell, KvFormat.Q4_0);
    switch (plain) {
      case Config c -> {
        Config q = assertInstanceOf(Config.class, q4, cell + ": q4_0 refused a cell that fits");
        String violation = invariantViolation(c.yaml(), q.yaml());
        assertTrue(
            violation == null,
            () -> cell + ": q4_0 config is not the default + the pair:\n" + violation);
        // the same on the record, so a writer change cannot hide a generator change
        List<String> args = new ArrayList<>(c.config().args());
        args.addAll(List.of("--kv", "q4_0"));
        EngineConfig e = c.config();
        assertEquals(
            new EngineConfig(e.schema(), e.engine(), e.model(), e.host(), args, e.env()),
            q.config());
      }
      case Refusal r -> {
        Refusal q =
            assertInstanceOf(Refusal.class, q4, cell + ": q4_0 fits where default does not");
        // Same verdict, same sentence, same advice. The figures may differ: the refusal states the
        // plan of exactly the config asked for, whose KV pools are the q4_0 ones (docs/GOLDEN.md).
        assertEquals(
            figuresMasked(r.message()),
            figuresMasked(q.message()),
            cell + ": q4_0 refuses with another sentence or advice");
        assertTrue(
            kvGib(q.message()) <= kvGib(r.message()),
            cell + ": q4_0 pools are larger than the default's: " + q.message());
      }
    }
  }

  /**
   * The invariant itself: null when {@code q4Yaml} is {@code defaultYaml} with exactly the pair
   * {@code - --kv}, {@code - q4_0} appended to its {@code args}, else a unified diff of what moved.
   */
  static String invariantViolation(String defaultYaml, String q4Yaml) {
    String expected = withKvPair(defaultYaml, "q4_0");
    return expected.equals(q4Yaml)
        ? null
        : UnifiedDiff.diff("default+pair", expected, "q4_0", q4Yaml);
  }

  /**
   * Inserts {@code - --kv} and {@code - FORMAT} after the last item of the top-level {@code args:}
   * sequence, with that sequence's indentation.
   */
  static String withKvPair(String yaml, String format) {
    List<String> lines = new ArrayList<>(List.of(yaml.split("\n", -1)));
    int start = lines.indexOf("args:");
    if (start < 0) {
      throw new IllegalArgumentException("no top-level args: line");
    }
    int end = start + 1;
    String indent = null;
    while (end < lines.size()) {
      String l = lines.get(end);
      String stripped = l.stripLeading();
      boolean item = stripped.startsWith("- ") || stripped.equals("-");
      if (!item && !(indent != null && l.startsWith(indent + " "))) {
        break;
      }
      if (item && indent == null) {
        indent = l.substring(0, l.length() - stripped.length());
      }
      end++;
    }
    if (indent == null) {
      throw new IllegalArgumentException("args: is empty");
    }
    lines.add(end, indent + "- " + format);
    lines.add(end, indent + "- --kv");
    return String.join("\n", lines);
  }

  /** Every number replaced by {@code #}: what is left is the sentence and its advice. */
  static String figuresMasked(String text) {
    return text.replaceAll("[0-9][0-9.,]*", "#");
  }

  /** The {@code KV x.xx} figure of a refusal, in GiB. */
  static double kvGib(String refusal) {
    Matcher m = Pattern.compile("\\bKV ([0-9]+\\.[0-9]+)").matcher(refusal);
    if (!m.find()) {
      throw new AssertionError("no KV figure in the refusal: " + refusal);
    }
    return Double.parseDouble(m.group(1));
  }

  @Test
  void withKvPairInsertsAtTheEndOfArgs() {
    assertEquals(
        "a: 1\nargs:\n- --ctx\n- '8'\n- --kv\n- q4_0\nenv:\n  X: '0'\n",
        withKvPair("a: 1\nargs:\n- --ctx\n- '8'\nenv:\n  X: '0'\n", "q4_0"));
    assertEquals(
        "args:\n  - --ctx\n  - '8'\n  - --kv\n  - q4_0\n",
        withKvPair("args:\n  - --ctx\n  - '8'\n", "q4_0"));
    assertThrows(IllegalArgumentException.class, () -> withKvPair("env: {}\n", "q4_0"));
  }
}
