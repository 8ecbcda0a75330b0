package dev.strata.engine.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.reader.StreamReader;

/**
 * Safe YAML reading into a small tree that remembers where every node is. Two passes over the text:
 * SnakeYAML's scanner first, which refuses tags, anchors, aliases and {@code %TAG} with their exact
 * position before any structure is built; then Jackson's YAML parser (on SnakeYAML's event parser)
 * for the structure, with depth and duplicate-key checks. Nothing here can instantiate a class:
 * Jackson's streaming parser has no constructor, and the scanner pass refuses every tag that is not
 * a standard scalar one.
 */
final class YamlTree {
  /** Largest config file, in bytes. */
  static final int MAX_BYTES = 1 << 20;

  /** Deepest nesting of mappings and lists (a config needs 3). */
  static final int MAX_DEPTH = 32;

  /**
   * Longest line, in characters. SnakeYAML's reader copies its unread window each time it needs
   * more text, so one long token costs time quadratic in its length (1 MiB on one line: seconds).
   * Bounding the line bounds that; the longest real line is a quoted 4096-byte path.
   */
  static final int MAX_LINE = 32 * 1024;

  /** Aliases SnakeYAML would expand (defence in depth: the scanner pass refuses every alias). */
  static final int MAX_ALIASES = 20;

  record Pos(int line, int column) {}

  sealed interface Node {
    Pos pos();
  }

  record Entry(String key, Pos keyPos, Node value) {}

  record MapNode(Pos pos, Map<String, Entry> entries) implements Node {}

  record SeqNode(Pos pos, List<Node> items) implements Node {}

  /**
   * @param token VALUE_STRING, VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT, VALUE_TRUE, VALUE_FALSE,
   *     VALUE_NULL or VALUE_EMBEDDED_OBJECT, as Jackson resolved the scalar
   * @param text the scalar's text as written (after unquoting)
   */
  record Scalar(Pos pos, JsonToken token, String text) implements Node {}

  static LoaderOptions loaderOptions() {
    LoaderOptions o = new LoaderOptions();
    o.setAllowDuplicateKeys(false);
    o.setMaxAliasesForCollections(MAX_ALIASES);
    o.setNestingDepthLimit(MAX_DEPTH);
    o.setCodePointLimit(MAX_BYTES);
    o.setAllowRecursiveKeys(false);
    o.setTagInspector(tag -> false); // no global tag may ever name a class
    return o;
  }

  private static final YAMLFactory FACTORY =
      YAMLFactory.builder()
          .loaderOptions(loaderOptions())
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(2 * MAX_DEPTH)
                  .maxStringLength(MAX_BYTES + 16)
                  .maxNumberLength(1000)
                  .build())
          .build();

  private final String text;
  private final String source;

  private YamlTree(String text, String source) {
    this.text = text;
    this.source = source;
  }

  /**
   * Parses one YAML document.
   *
   * @return the root node, or null when the text holds no document (empty, or comments only)
   * @throws ConfigException for anything unsafe or malformed, with its position
   */
  static Node parse(String text, String source) {
    YamlTree t = new YamlTree(text, source);
    t.prescan();
    t.scanTokens();
    return t.build();
  }

  private ConfigException error(int line, int column, String detail) {
    return new ConfigException(source, line, column, detail);
  }

  /** Characters first: a tab in indentation, or a control character, each at its position. */
  private void prescan() {
    int line = 1;
    int column = 1;
    boolean indent = true;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (cp == '\n' || cp == '\r' || cp == 0x85 || cp == 0x2028 || cp == 0x2029) {
        if (cp == '\r' && i < text.length() && text.charAt(i) == '\n') {
          i++;
        }
        line++;
        column = 1;
        indent = true;
        continue;
      }
      if (cp == '\t' && indent) {
        throw error(
            line,
            column,
            "a tab indents this line; YAML indents with spaces only (replace the tab with"
                + " spaces)");
      }
      if (!StreamReader.isPrintable(cp) || (cp == 0xFEFF && i > 1)) {
        throw error(
            line,
            column,
            String.format(
                "character U+%04X is not allowed here (a config is plain UTF-8 text)", cp));
      }
      indent &= cp == ' ' || cp == '\t';
      column++;
      if (column > MAX_LINE + 1) {
        throw error(
            line,
            0,
            "the line is longer than "
                + MAX_LINE
                + " characters; config lines are short (is this the right file?)");
      }
    }
  }

  /** Tokens next: refuse tags, anchors, aliases and %TAG before any structure exists. */
  private void scanTokens() {
    YamlRules.Refusal r;
    try {
      r = YamlRules.firstRefused(text, "a config", loaderOptions());
    } catch (YAMLException e) {
      throw syntax(e, null);
    }
    if (r != null) {
      throw error(r.line(), r.column(), r.message());
    }
  }

  /** The structure, through Jackson. */
  private Node build() {
    try (JsonParser p = FACTORY.createParser(text)) {
      // duplicates are found below, where the message can name the section and the first line
      p.disable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      JsonToken t = p.nextToken();
      if (t == null) {
        return null;
      }
      Node root = node(p, t, 1, "");
      JsonToken after = p.nextToken();
      if (after != null) {
        Pos pos = pos(p);
        throw error(
            pos.line(),
            pos.column(),
            "a second YAML document starts here; a config is one document (remove the '---')");
      }
      return root;
    } catch (JsonProcessingException e) {
      throw syntax(e, e.getLocation());
    } catch (YAMLException e) {
      throw syntax(e, null);
    } catch (IOException e) {
      throw error(0, 0, "cannot read: " + e.getMessage());
    }
  }

  private Node node(JsonParser p, JsonToken t, int depth, String where) throws IOException {
    Pos pos = pos(p);
    if ((t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) && depth > MAX_DEPTH) {
      throw error(
          pos.line(),
          pos.column(),
          "nesting deeper than " + MAX_DEPTH + " levels; a config needs 3");
    }
    if (t == JsonToken.START_OBJECT) {
      Map<String, Entry> entries = new LinkedHashMap<>();
      JsonToken k;
      while ((k = p.nextToken()) == JsonToken.FIELD_NAME) {
        String key = p.currentName();
        Pos keyPos = pos(p);
        Entry first = entries.get(key);
        if (first != null) {
          throw error(
              keyPos.line(),
              keyPos.column(),
              "duplicate key '"
                  + YamlRules.shorten(key)
                  + "' "
                  + section(where)
                  + " (first at line "
                  + first.keyPos().line()
                  + "); keep one");
        }
        Node value = node(p, p.nextToken(), depth + 1, where.isEmpty() ? key : where + "." + key);
        entries.put(key, new Entry(key, keyPos, value));
      }
      return new MapNode(pos, entries);
    }
    if (t == JsonToken.START_ARRAY) {
      List<Node> items = new ArrayList<>();
      JsonToken v;
      while ((v = p.nextToken()) != JsonToken.END_ARRAY) {
        items.add(node(p, v, depth + 1, where + "[" + items.size() + "]"));
      }
      return new SeqNode(pos, items);
    }
    if (t == null || t.isStructEnd() || t == JsonToken.FIELD_NAME) {
      throw error(pos.line(), pos.column(), "YAML syntax error: unexpected end of a value");
    }
    return new Scalar(pos, t, p.getText());
  }

  static String section(String where) {
    return where.isEmpty() ? "at the top level" : "in " + where;
  }

  private static Pos pos(JsonParser p) {
    JsonLocation l = p.currentTokenLocation();
    return new Pos(Math.max(0, l.getLineNr()), Math.max(0, l.getColumnNr()));
  }

  /** One line, with the most precise position any layer knows. */
  private ConfigException syntax(Exception e, JsonLocation fallback) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof MarkedYAMLException m) {
        Mark mark = m.getProblemMark() != null ? m.getProblemMark() : m.getContextMark();
        String problem = m.getProblem() != null ? m.getProblem() : m.getContext();
        String detail = oneLine(problem);
        if (detail.contains("\\t(TAB)")) {
          detail = "a tab here; YAML separates and indents with spaces only (replace the tab)";
        } else {
          if (m.getContext() != null && m.getProblem() != null) {
            detail += " (" + oneLine(m.getContext()) + ")";
          }
          detail =
              "YAML syntax error: "
                  + detail
                  + (mark == null
                      ? ""
                      : YamlRules.indentHint(
                          problem, text, mark.getLine() + 1, mark.getColumn() + 1));
        }
        return mark == null
            ? error(0, 0, detail)
            : error(mark.getLine() + 1, mark.getColumn() + 1, detail);
      }
    }
    String msg = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
    msg = oneLine(msg == null ? e.getClass().getSimpleName() : msg);
    if (msg.startsWith("Expected a field name")) {
      msg = "a mapping key must be a plain value, not a list or a mapping";
    }
    String detail = "YAML syntax error: " + msg;
    if (fallback != null && fallback.getLineNr() > 0) {
      return error(fallback.getLineNr(), Math.max(0, fallback.getColumnNr()), detail);
    }
    return error(0, 0, detail);
  }

  private static String oneLine(String s) {
    if (s == null) {
      return "";
    }
    String first = s.strip().lines().findFirst().orElse("");
    return first.length() > 200 ? first.substring(0, 200) + "…" : first;
  }
}
