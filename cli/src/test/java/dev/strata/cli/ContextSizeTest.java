package dev.strata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The one rule for a context as people write it: a size in range reads, a number out of range
 * (zero, negative, too large, too large to hold) is told the flag table's range, anything else is
 * told how a size is written.
 */
class ContextSizeTest {
  /** The --ctx option that reads a size by this rule (strata-setup's, the demo's). */
  private static final CliOption<Long> CTX = EngineOptions.context("a context");

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          1 | 1
          32768 | 32768
          32k | 32768
          32K | 32768
          1,048,576 | 1048576
          1_024 | 1024
          1024k | 1048576
          00000000000000004096 | 4096
          ' 4096 ' | 4096
          """)
  void sizesInRangeRead(String text, long tokens) throws CliOption.Refused {
    assertEquals(tokens, ContextSize.parse(text));
    assertNull(ContextSize.problem(text));
    assertEquals(tokens, CTX.reader().read(text));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          0 | 0 is out of range (a whole number in 1..1048576)
          -5 | -5 is out of range (a whole number in 1..1048576)
          -0 | -0 is out of range (a whole number in 1..1048576)
          -5k | -5k is out of range (a whole number in 1..1048576)
          1048577 | 1048577 is out of range (a whole number in 1..1048576)
          1025k | 1049600 is out of range (a whole number in 1..1048576)
          99999999999 | 99999999999 is out of range (a whole number in 1..1048576)
          99999999999999999999 | 99999999999999999999 is out of range (a whole number in 1..1048576)
          9999999999999k | 9999999999999k is out of range (a whole number in 1..1048576)
          """)
  void numbersOutOfRangeAreToldTheRange(String text, String problem) {
    assertEquals(problem, ContextSize.problem(text));
    CliOption.Refused e = assertThrows(CliOption.Refused.class, () -> CTX.reader().read(text));
    assertEquals(problem, e.getMessage());
    assertTrue(e.outOfRange(), "told as one line, --ctx: " + problem);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          lots | 'lots' is not a context size: tokens as digits (32768), or with k for x 1,024 (32k)
          32kb | '32kb' is not a context size: tokens as digits (32768), or with k for x 1,024 (32k)
          +5 | '+5' is not a context size: tokens as digits (32768), or with k for x 1,024 (32k)
          -- | '--' is not a context size: tokens as digits (32768), or with k for x 1,024 (32k)
          k | 'k' is not a context size: tokens as digits (32768), or with k for x 1,024 (32k)
          ٤٠٩٦ | '٤٠٩٦' is not a context size: ASCII digits 0-9 only (32768, or 32k for x 1,024)
          """)
  void malformedSizesAreToldHowToWriteOne(String text, String problem) {
    assertEquals(-1, ContextSize.parse(text));
    assertEquals(problem, ContextSize.problem(text));
    CliOption.Refused e = assertThrows(CliOption.Refused.class, () -> CTX.reader().read(text));
    assertEquals(problem, e.getMessage());
    assertFalse(e.outOfRange(), "picocli's usage error, with its 'Try --help' line");
  }
}
