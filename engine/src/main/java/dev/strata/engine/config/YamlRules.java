package dev.strata.engine.config;

import dev.strata.engine.text.Clip;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.scanner.ScannerImpl;
import org.yaml.snakeyaml.tokens.AliasToken;
import org.yaml.snakeyaml.tokens.AnchorToken;
import org.yaml.snakeyaml.tokens.DirectiveToken;
import org.yaml.snakeyaml.tokens.TagToken;
import org.yaml.snakeyaml.tokens.TagTuple;
import org.yaml.snakeyaml.tokens.Token;

/**
 * The one rule for every YAML file the toolkit reads (the engine config, strata-setup's answers
 * files and templates, all through {@link YamlReader}): a file holds plain values only. A pass over
 * SnakeYAML's scanner tokens, before any structure is built, refuses every anchor and alias (so an
 * alias bomb is refused at its first {@code &}), every tag but the standard scalar ones (so no tag
 * can ever name a class), and every directive but {@code %YAML}, each at its exact position.
 */
public final class YamlRules {
  /** The standard scalar tags ({@code !!str} and friends): the only tags a file may carry. */
  public static final Set<String> SCALAR_TAGS = Set.of("str", "int", "float", "bool", "null");

  private static final String YAML_TAG_PREFIX = "tag:yaml.org,2002:";

  private YamlRules() {}

  /**
   * What the rule refuses, where.
   *
   * @param line 1-based
   * @param column 1-based
   * @param message one line, without the position
   */
  public record Refusal(int line, int column, String message) {}

  /**
   * The first anchor, alias, non-scalar tag or directive in {@code text}, or null when there is
   * none.
   *
   * @param holder what the file is, for the message ("a config", "this file")
   * @param options the reader's limits (code points), as the parse that follows uses them
   * @throws YAMLException when the scanner itself finds a syntax error first (with its mark)
   */
  public static Refusal firstRefused(String text, String holder, LoaderOptions options) {
    // every such token starts with one of these characters; without them the pass can find
    // nothing, and skipping it halves the cost of reading a config
    if (text.chars().noneMatch(c -> c == '!' || c == '&' || c == '*' || c == '%')) {
      return null;
    }
    ScannerImpl scanner = new ScannerImpl(new StreamReader(text), options);
    while (!scanner.checkToken(Token.ID.StreamEnd)) {
      Token t = scanner.getToken();
      Mark m = t.getStartMark();
      String refused =
          switch (t) {
            case TagToken tag -> tagProblem(tag.getValue(), holder);
            case AnchorToken a -> "anchor &" + shorten(a.getValue()) + plainOnly(holder);
            case AliasToken a -> "alias *" + shorten(a.getValue()) + plainOnly(holder);
            case DirectiveToken<?> d when !"YAML".equals(d.getName()) ->
                "directive %" + shorten(d.getName()) + " is not allowed in " + holder;
            default -> null;
          };
      if (refused != null) {
        return new Refusal(m.getLine() + 1, m.getColumn() + 1, refused);
      }
    }
    return null;
  }

  /**
   * A hint for SnakeYAML's structure errors that a wrong indent causes (a key indented one space
   * off, a key indented under a plain value so it reads as that value's continuation), or "" when
   * the problem is not one of them.
   *
   * @param problem SnakeYAML's problem text
   * @param text the whole file
   * @param line the 1-based line the problem points at
   * @param column the 1-based column it points at
   */
  public static String indentHint(String problem, String text, int line, int column) {
    if (problem == null || line <= 0) {
      return "";
    }
    boolean indent;
    if (problem.contains("mapping values are not allowed here")) {
      // "a: b: c" is a colon in a value, not an indent: only when no key precedes on the line
      String before = lineText(text, line);
      before = before.substring(0, Math.min(before.length(), Math.max(0, column - 1)));
      indent = !before.contains(": ");
    } else {
      // "expected <block end>, but found '?'" is a list item followed by a mapping key (a stray
      // "- "), not an indent: no hint there
      indent =
          (problem.contains("<block end>") && !problem.contains("found '?'"))
              || problem.contains("could not find expected ':'")
              || problem.contains("did not find expected key")
              || problem.contains("did not find expected '-' indicator");
    }
    return indent
        ? "; check the indentation at line " + line + ": YAML uses spaces, two per level"
        : "";
  }

  private static String lineText(String text, int line) {
    int at = 0;
    for (int n = 1; n < line && at >= 0; n++) {
      at = text.indexOf('\n', at);
      at = at < 0 ? -1 : at + 1;
    }
    if (at < 0) {
      return "";
    }
    int end = text.indexOf('\n', at);
    return text.substring(at, end < 0 ? text.length() : end);
  }

  private static String plainOnly(String holder) {
    return " is not allowed: "
        + holder
        + " holds plain values only (no anchors or aliases; write the value out)";
  }

  private static String tagProblem(TagTuple tag, String holder) {
    String handle = tag.getHandle();
    String suffix = tag.getSuffix();
    boolean ok =
        ("!!".equals(handle) && SCALAR_TAGS.contains(suffix))
            || (handle == null
                && suffix.startsWith(YAML_TAG_PREFIX)
                && SCALAR_TAGS.contains(suffix.substring(YAML_TAG_PREFIX.length())));
    if (ok) {
      return null;
    }
    String shown = handle == null ? "!<" + suffix + ">" : handle + suffix;
    return "tag "
        + shorten(shown)
        + " is not allowed: "
        + holder
        + " holds plain values only (the only tags are !!str, !!int, !!float, !!bool, !!null)";
  }

  private static String shorten(String s) {
    return Clip.clip(s);
  }
}
