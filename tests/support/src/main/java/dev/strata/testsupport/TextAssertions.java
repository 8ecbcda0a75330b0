package dev.strata.testsupport;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

/** Assertions on a command's text output that tests in every module share. */
public final class TextAssertions {
  private TextAssertions() {}

  /**
   * Asserts that {@code text} contains each of {@code parts} (each checked on its own, failures
   * listed together; the message is the whole text, so a failure shows what was printed instead).
   */
  public static void assertContainsAll(String text, String... parts) {
    assertAll(
        Arrays.stream(parts)
            .map(p -> () -> assertTrue(text.contains(p), "expected «" + p + "» in:\n" + text)));
  }
}
