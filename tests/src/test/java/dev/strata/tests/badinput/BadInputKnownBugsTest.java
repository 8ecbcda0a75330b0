package dev.strata.tests.badinput;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input that is not refused as it should be yet ({@code badinput/known-bugs.tsv}, each row
 * pinned to the right behaviour). A row that still fails is skipped with what went wrong, so the
 * report shows it; a row that now passes fails here, so it moves to cases.tsv and stays fixed.
 */
class BadInputKnownBugsTest {
  @TempDir Path root;

  @TestFactory
  Stream<DynamicTest> knownBugs() {
    return BadInputCase.load(CorpusRunner.corpus().resolve("known-bugs.tsv")).stream()
        .map(c -> DynamicTest.dynamicTest("known bug " + c.name(), () -> check(c)));
  }

  private void check(BadInputCase c) throws Exception {
    try {
      CorpusRunner.run(c, root);
    } catch (AssertionError stillBroken) {
      Assumptions.abort("known bug, still there: " + stillBroken.getMessage());
    }
    fail(c.name() + " is fixed: move its row from known-bugs.tsv to cases.tsv");
  }
}
