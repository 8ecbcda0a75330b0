package dev.strata.engine.flags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.text.AsciiDigits;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The value rules of flags and env values at their edges: each limit accepted, limit + 1 refused
 * (docs/CONFIG.md, docs/FLAGS.md).
 */
class ValueKindTest {

  @Test
  void aNumberOf18DigitsIsOutOfRangeAndOf19IsNotANumber() {
    ValueKind.IntRange r = new ValueKind.IntRange(1, 1_048_576);
    assertNull(r.problem("1"));
    assertNull(r.problem("1048576"));
    assertEquals("0 is out of range (a whole number in 1..1048576)", r.problem("0"));
    assertEquals("1048577 is out of range (a whole number in 1..1048576)", r.problem("1048577"));
    String d18 = "9".repeat(18);
    assertEquals(d18 + " is out of range (a whole number in 1..1048576)", r.problem(d18));
    String d19 = "9".repeat(19); // would overflow a long: refused as text, never parsed
    assertEquals("'" + d19 + "' is not a whole number in 1..1048576", r.problem(d19));
    assertEquals("'' is not a whole number in 1..1048576", r.problem(""));
  }

  @Test
  void digitsOfOtherScriptsAreNamedButAsciiEdgesAreNot() {
    assertTrue(AsciiDigits.hasForeignDigit("\u0663")); // ARABIC-INDIC DIGIT THREE
    assertFalse(AsciiDigits.hasForeignDigit("0123456789"));
    assertFalse(AsciiDigits.hasForeignDigit("0"));
    assertFalse(AsciiDigits.hasForeignDigit("9"));
    assertFalse(AsciiDigits.all(""));
    assertTrue(AsciiDigits.all("09"));
    ValueKind.IntRange r = new ValueKind.IntRange(0, 9);
    assertEquals(
        "'\u0663' is not a whole number in 0..9 (ASCII digits 0-9 only)", r.problem("\u0663"));
    assertEquals("'x' is not a whole number in 0..9", r.problem("x"));
  }

  @Test
  void rangesAndChoicesOfTheTableAreWellFormed() {
    assertThrows(IllegalArgumentException.class, () -> new ValueKind.IntRange(5, 4));
    assertThrows(IllegalArgumentException.class, () -> new ValueKind.IntRange(-1, 4));
    assertNull(new ValueKind.IntRange(0, 0).problem("0"));
    assertThrows(IllegalArgumentException.class, () -> new ValueKind.Choice(List.of()));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new FlagSpec(
                "model",
                "PATH",
                new ValueKind.PathValue(),
                null,
                null,
                "help",
                EnumSet.allOf(Backend.class),
                true));
  }

  @Test
  void aSwitchTakesNoValue() {
    ValueKind.Switch s = new ValueKind.Switch();
    assertNull(s.problem(""));
    assertEquals("takes no value", s.problem("1"));
  }

  @Test
  void textLimitsSitAtTheirBoundary() {
    int max = EnvPolicy.MAX_ENV_VALUE_BYTES;
    assertNull(Text.problem("a".repeat(max), max));
    assertEquals(
        "is " + (max + 1) + " bytes long (at most " + max + ")",
        Text.problem("a".repeat(max + 1), max));
    // bytes, not chars: é is two bytes in UTF-8
    assertEquals("is 4 bytes long (at most 3)", Text.problem("éé", 3));
    // a surrogate pair is one character; a lone half is not text
    assertNull(Text.problem("\uD83D\uDE00", 4));
    assertEquals("is not valid Unicode text (a lone surrogate)", Text.problem("a\uD83D", 16));
    assertEquals("is not valid Unicode text (a lone surrogate)", Text.problem("\uDE00a", 16));
    assertEquals(
        "is not valid Unicode text (a lone surrogate)", Text.problem("\uD83D\uD83D\uDE00", 16));
    assertEquals("contains a line break", Text.problem("a\rb", 16));
    assertEquals("contains a NUL character", Text.problem("a\0", 16));
  }

  @Test
  void envNamesAndValuesAtTheirLimits() {
    String longest = "A".repeat(EnvPolicy.MAX_ENV_NAME);
    EnvPolicy.validate(Map.of(longest, "x"));
    FlagException e =
        assertThrows(FlagException.class, () -> EnvPolicy.validate(Map.of(longest + "A", "x")));
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertTrue(
        e.getMessage()
            .startsWith("env: '" + "A".repeat(20) + "…" + "A".repeat(39) + "' is not a valid"),
        e.getMessage());
    // a bad name of 60 characters (Clip.MAX) is shown whole, its control characters made visible
    String sixty = "1" + "B".repeat(58) + "\u001b";
    FlagException esc =
        assertThrows(FlagException.class, () -> EnvPolicy.validate(Map.of(sixty, "x")));
    assertTrue(
        esc.getMessage().startsWith("env: '1" + "B".repeat(58) + "\\x1B' is not a valid"),
        esc.getMessage());
    String forty = "1" + "B".repeat(39);
    FlagException f =
        assertThrows(FlagException.class, () -> EnvPolicy.validate(Map.of(forty, "x")));
    assertTrue(f.getMessage().startsWith("env: '" + forty + "' is not a valid"), f.getMessage());
    EnvPolicy.validate(Map.of("V", "v".repeat(EnvPolicy.MAX_ENV_VALUE_BYTES)));
    FlagException g =
        assertThrows(
            FlagException.class,
            () -> EnvPolicy.validate(Map.of("V", "v".repeat(EnvPolicy.MAX_ENV_VALUE_BYTES + 1))));
    assertEquals("V", g.place().envName());
  }

  @Test
  void aNullArgumentIsNamedByItsPosition() {
    FlagException e =
        assertThrows(
            FlagException.class,
            () -> EngineFlags.parse(Arrays.asList("--model", "/m.gguf", null), Backend.PC));
    assertEquals("argument 3 is missing (null)", e.getMessage());
  }
}
