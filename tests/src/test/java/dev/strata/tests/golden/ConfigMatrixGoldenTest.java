package dev.strata.tests.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.kv.KvFormat;
import dev.strata.tests.golden.GoldenMatrix.Cell;
import dev.strata.tests.golden.GoldenMatrix.Config;
import dev.strata.tests.golden.GoldenMatrix.Outcome;
import dev.strata.testsupport.GoldenFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/GOLDEN.md, default identity: the generated config of each of the 48 cells, and the full q4_0
 * config of three, equal their committed goldens byte for byte. A cell whose plan does not fit has
 * its refusal as golden.
 */
class ConfigMatrixGoldenTest {
  private static final GoldenFiles GOLDEN = GoldenFiles.project();

  static List<Cell> cells() {
    return GoldenMatrix.cells();
  }

  static List<Cell> q4Cells() {
    return GoldenMatrix.q4Cells();
  }

  /** The golden of a q4_0 config: the cell's name with {@code -kv-q4_0}. */
  static String q4GoldenName(Cell cell) {
    return "config/" + cell.name() + "-kv-q4_0.yaml";
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cells")
  void defaultConfigEqualsGolden(Cell cell) {
    Outcome o = GoldenMatrix.generate(cell, null);
    GOLDEN.check(o.goldenName(cell.name()), o.text());
  }

  @ParameterizedTest(name = "{0} --kv q4_0")
  @MethodSource("q4Cells")
  void q4ConfigEqualsGolden(Cell cell) {
    Outcome o = GoldenMatrix.generate(cell, KvFormat.Q4_0);
    Config c = assertInstanceOf(Config.class, o, cell + " --kv q4_0 must give a config");
    GOLDEN.check(q4GoldenName(cell), c.yaml());
  }

  /**
   * Exactly one golden per cell (a config or a refusal, never both) plus the three q4_0 configs: a
   * cell that starts or stops fitting cannot leave its old golden behind. Updating removes them.
   */
  @Test
  void everyGoldenBelongsToACell() {
    TreeSet<String> expected = new TreeSet<>();
    for (Cell cell : cells()) {
      expected.add(GoldenMatrix.generate(cell, null).goldenName(cell.name()));
    }
    for (Cell cell : q4Cells()) {
      expected.add(q4GoldenName(cell));
    }
    assertEquals(48 + 3, expected.size());
    List<String> present = new ArrayList<>(GOLDEN.list("config"));
    present.addAll(GOLDEN.list("refusal"));
    List<String> stray = present.stream().filter(n -> !expected.contains(n)).toList();
    stray.forEach(GOLDEN::removeStale);
    if (!GOLDEN.updating()) {
      assertEquals(List.of(), stray, "goldens no cell produces (update with -Dgolden.update=true)");
      assertEquals(expected, new TreeSet<>(present), "goldens present vs the cells'");
    }
  }

  /** Goldens are machine-independent: the model under /models, a fixed library, no temp path. */
  @Test
  void goldensHoldNoMachinePath() {
    String tmp = System.getProperty("java.io.tmpdir");
    String home = System.getProperty("user.home");
    for (Cell cell : cells()) {
      if (GoldenMatrix.generate(cell, KvFormat.Q4_0) instanceof Config c) {
        String yaml = c.yaml();
        assertFalse(yaml.contains(tmp), cell + " names the temp folder " + tmp);
        assertFalse(yaml.contains(home), cell + " names the home folder " + home);
        assertFalse(yaml.contains("strata-golden-demo-"), cell + " names the demo's temp folder");
        for (String shard : c.config().model().shards()) {
          assertTrue(shard.startsWith(GoldenMatrix.MODEL_FOLDER + "/"), shard);
        }
        assertEquals(GoldenMatrix.LIBRARY, c.config().engine().library());
        assertEquals(cell.shards(), c.config().model().shards().size());
      }
    }
  }
}
