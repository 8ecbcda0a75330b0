package dev.strata.tests.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.engine.gen.Generator;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.plan.PlanText;
import dev.strata.tests.golden.GoldenMatrix.Cell;
import dev.strata.testsupport.GoldenFiles;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The memory-plan table ({@link PlanText#table}) the wizard shows, for a few cells: a stream plan
 * with and without q4_0 (the KV rows and the arena's extra slots), a small Mac at long context, a
 * resident plan that fits and one that is refused.
 */
class PlanTableGoldenTest {
  private static final GoldenFiles GOLDEN = GoldenFiles.project();

  static List<Arguments> cells() {
    return List.of(
        Arguments.of(new Cell(ExpertsMode.STREAM, 48, 32_768, 4), null),
        Arguments.of(new Cell(ExpertsMode.STREAM, 48, 32_768, 4), KvFormat.Q4_0),
        Arguments.of(new Cell(ExpertsMode.STREAM, 16, 65_536, 1), null),
        Arguments.of(new Cell(ExpertsMode.RESIDENT, 128, 65_536, 4), null),
        Arguments.of(new Cell(ExpertsMode.RESIDENT, 16, 8_192, 1), null));
  }

  @ParameterizedTest(name = "{0} kv={1}")
  @MethodSource("cells")
  void planTableEqualsGolden(Cell cell, KvFormat kv) {
    Generator.Generated g = GoldenMatrix.plan(cell, kv);
    // the table is of exactly the config's plan: same verdict as the generator's
    assertEquals(g.plan().fits(), GoldenMatrix.generate(cell, kv) instanceof GoldenMatrix.Config);
    String name = "plan/" + cell.name() + (kv == null ? "" : "-kv-" + kv.flagName()) + ".txt";
    GOLDEN.check(name, PlanText.table(g.plan()));
  }
}
