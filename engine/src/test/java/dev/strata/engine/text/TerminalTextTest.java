package dev.strata.engine.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TerminalTextTest {
  @Test
  void terminalEscapesAreShownNotObeyed() {
    assertEquals("a\\x1B]0;pwned\\x07b", TerminalText.escape("a\u001b]0;pwned\u0007b"));
    assertEquals("\\x1B[2J", TerminalText.escape("\u001b[2J"));
    assertEquals("x\\ny\\rz\\tw", TerminalText.escape("x\ny\rz\tw"));
    assertEquals("\\x00\\x7F", TerminalText.escape("\u0000\u007f"));
  }

  @Test
  void c1ControlsFormatCharactersSeparatorsAndLoneSurrogatesAreEscaped() {
    assertEquals("\\u009B2J", TerminalText.escape("\u009b2J")); // the one-byte CSI
    assertEquals("abc\\u202Edef", TerminalText.escape("abc\u202edef")); // right-to-left override
    assertEquals("a\\u200Db", TerminalText.escape("a\u200db"));
    assertEquals("a\\u2028b\\u2029", TerminalText.escape("a\u2028b\u2029"));
    assertEquals("\\uD800x\\uDC00", TerminalText.escape("\ud800x\udc00"));
    assertEquals("\\U000E0041", TerminalText.escape(new String(Character.toChars(0xE0041))));
  }

  @Test
  void plainTextAndPrintableUnicodePassUnchanged() {
    String s = "/home/ünï/模型/engine.yaml — 32 GiB \\x1B 😀";
    assertEquals(s, TerminalText.escape(s));
    assertTrue(TerminalText.isClean(s));
    assertFalse(TerminalText.isClean("a\u001bb"));
    assertEquals("null", TerminalText.escape(null));
  }

  @Test
  void everyCodePointBelowTheSurrogatesComesOutPrintable() {
    for (int c = 0; c < 0xD800; c++) {
      String out = TerminalText.escape(String.valueOf((char) c));
      for (char o : out.toCharArray()) {
        assertFalse(Character.isISOControl(o), "U+" + Integer.toHexString(c) + " -> " + out);
        assertFalse(Character.getType(o) == Character.FORMAT, "U+" + Integer.toHexString(c));
      }
    }
  }
}
