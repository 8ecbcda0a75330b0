package dev.strata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** picocli's usage errors in the toolkit's words: the options named as a user types them. */
class CliMessageTest {

  @Test
  void mutuallyExclusiveOptionsAreNamedWithoutTheirValueLabels() {
    assertEquals(
        "--out and --print cannot be used together: give one of them",
        Cli.together("--out=FILE, --print are mutually exclusive (specify only one)"));
    assertEquals(
        "-a and --bee and --sea cannot be used together: give one of them",
        Cli.together("-a, --bee=<b>, --sea are mutually exclusive (specify only one)"));
  }

  @Test
  void anyOtherMessageIsLeftAsItIs() {
    assertEquals(
        "Missing required option: '--model'", Cli.together("Missing required option: '--model'"));
  }
}
