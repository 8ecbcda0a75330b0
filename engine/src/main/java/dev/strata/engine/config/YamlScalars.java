package dev.strata.engine.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import org.yaml.snakeyaml.reader.StreamReader;

/**
 * How the writer spells a string: plain when that is safe and reads back as the same string,
 * otherwise single-quoted, and double-quoted with escapes when the text holds characters YAML
 * cannot show literally (tabs, control characters, line separators). So {@code --ctx} stays plain
 * and {@code '32768'} is quoted: written plain, YAML would read a number.
 */
final class YamlScalars {
  private YamlScalars() {}

  /** Characters that make a plain scalar ambiguous somewhere in YAML; quoting them is cheap. */
  private static final String SPECIAL = "#:,[]{}&*!|>'\"%@`";

  private static final YAMLFactory PROBE = YAMLFactory.builder().build();

  static String quote(String s) {
    if (plainIsSafe(s)) {
      return s;
    }
    if (s.codePoints().allMatch(YamlScalars::literal)) {
      return "'" + s.replace("'", "''") + "'";
    }
    return doubleQuoted(s);
  }

  /** Printable, and not a tab or one of YAML 1.1's extra line breaks, nor a BOM. */
  private static boolean literal(int cp) {
    return cp != '\t'
        && cp != 0x85
        && cp != 0x2028
        && cp != 0x2029
        && cp != 0xFEFF
        && cp >= 0x20
        && StreamReader.isPrintable(cp);
  }

  private static boolean plainIsSafe(String s) {
    if (s.isEmpty() || s.length() > 1000) {
      return false;
    }
    char first = s.charAt(0);
    if (first == ' ' || first == '?' || SPECIAL.indexOf(first) >= 0) {
      return false;
    }
    if (first == '-' && (s.length() == 1 || s.charAt(1) == ' ')) {
      return false;
    }
    if (s.endsWith(" ") || s.startsWith("---") || s.startsWith("...")) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (SPECIAL.indexOf(s.charAt(i)) >= 0) {
        return false;
      }
    }
    if (!s.codePoints().allMatch(YamlScalars::literal)) {
      return false;
    }
    return readsBackAsString(s);
  }

  /**
   * Asks the reader itself: {@code k: <s>} must parse to exactly the string {@code s}. This is what
   * keeps {@code 32768}, {@code true}, {@code yes}, {@code ~}, {@code 0x1A} or {@code 1e3} quoted.
   */
  private static boolean readsBackAsString(String s) {
    try (JsonParser p = PROBE.createParser("k: " + s + "\n")) {
      return p.nextToken() == JsonToken.START_OBJECT
          && p.nextToken() == JsonToken.FIELD_NAME
          && p.nextToken() == JsonToken.VALUE_STRING
          && s.equals(p.getText())
          && p.nextToken() == JsonToken.END_OBJECT
          && p.nextToken() == null;
    } catch (IOException | RuntimeException e) {
      return false; // the plain spelling is not even valid YAML: quote it
    }
  }

  private static String doubleQuoted(String s) {
    StringBuilder b = new StringBuilder(s.length() + 8).append('"');
    s.codePoints()
        .forEach(
            cp -> {
              switch (cp) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case 0 -> b.append("\\0");
                case 7 -> b.append("\\a");
                case 8 -> b.append("\\b");
                case '\t' -> b.append("\\t");
                case '\n' -> b.append("\\n");
                case 0x0B -> b.append("\\v");
                case 0x0C -> b.append("\\f");
                case '\r' -> b.append("\\r");
                case 0x1B -> b.append("\\e");
                case 0x85 -> b.append("\\N");
                case 0x2028 -> b.append("\\L");
                case 0x2029 -> b.append("\\P");
                default -> {
                  if (literal(cp)) {
                    b.appendCodePoint(cp);
                  } else if (cp <= 0xFF) {
                    b.append(String.format("\\x%02X", cp));
                  } else if (cp <= 0xFFFF) {
                    b.append(String.format("\\u%04X", cp));
                  } else {
                    b.append(String.format("\\U%08X", cp));
                  }
                }
              }
            });
    return b.append('"').toString();
  }
}
