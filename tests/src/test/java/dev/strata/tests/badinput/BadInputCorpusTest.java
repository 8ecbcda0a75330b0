package dev.strata.tests.badinput;

import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/** The bad-input corpus: every row of {@code badinput/cases.tsv}, as {@link CorpusRunner} says. */
class BadInputCorpusTest {
  @TempDir Path root;

  @TestFactory
  Stream<DynamicTest> corpusCases() {
    return BadInputCase.load(CorpusRunner.corpus().resolve("cases.tsv")).stream()
        .map(
            c ->
                DynamicTest.dynamicTest(
                    c.kind() + "/" + c.name(), () -> CorpusRunner.run(c, root)));
  }
}
