package dev.strata.engine.config;

import dev.strata.engine.text.Clip;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.Parser;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * The one YAML reader of the toolkit: the engine config ({@link ConfigCodec}), strata-setup's
 * engine templates and {@code --answers} files ({@code dev.strata.engine.gen.StrictYaml}) all go
 * through it. Safe and strict, with the line and column of every node:
 *
 * <ol>
 *   <li>characters first: a tab in indentation, a control character, a line over {@link
 *       Limits#maxLine()}, each at its position;
 *   <li>then {@link YamlRules}: every anchor, alias, non-scalar tag and directive is refused at its
 *       first character, before any structure exists (so an alias bomb is refused at its first
 *       {@code &} and no tag can ever name a class);
 *   <li>then SnakeYAML's composer, which only builds nodes (nothing is ever constructed), with the
 *       nesting depth counted on the events as they stream (so a deep file is refused at the first
 *       level too many, not after it is built) and duplicate keys refused with the line of the
 *       first.
 * </ol>
 *
 * The marks of SnakeYAML's nodes are the positions reported: 1-based line and column.
 */
public final class YamlReader {
  private YamlReader() {}

  /**
   * What a file may be.
   *
   * @param maxChars the largest text, in code points
   * @param maxDepth the deepest nesting of mappings and lists (the root is level 1)
   * @param maxLine the longest line, in characters: SnakeYAML's reader copies its unread window
   *     each time it needs more text, so one long token costs time quadratic in its length
   * @param holder what the file is, for messages ("a config", "this file")
   * @param depthNeed what the message says a real file needs ("a config needs 3")
   */
  public record Limits(int maxChars, int maxDepth, int maxLine, String holder, String depthNeed) {}

  /** Builds the caller's exception for a problem at a 1-based line and column (0 when unknown). */
  public interface Errors {
    RuntimeException at(int line, int column, String detail);
  }

  /** Where a node starts: 1-based line and column. */
  public record Pos(int line, int column) {}

  /** A node of the tree. */
  public sealed interface Node {
    Pos pos();
  }

  /** How YAML resolved a scalar (a quoted scalar is always {@code STRING}). */
  public enum Kind {
    STRING,
    INT,
    FLOAT,
    BOOL,
    NULL
  }

  /** A mapping entry: the key's text and position, and its value. */
  public record Entry(String key, Pos keyPos, Node value) {}

  /** A mapping, in file order. */
  public record MapNode(Pos pos, Map<String, Entry> entries) implements Node {}

  /** A list. */
  public record SeqNode(Pos pos, List<Node> items) implements Node {}

  /**
   * A scalar.
   *
   * @param kind as YAML 1.1 resolves it ({@code 32768} is INT, {@code '32768'} STRING)
   * @param text the scalar's text as written, after unquoting
   */
  public record Scalar(Pos pos, Kind kind, String text) implements Node {}

  /** The options SnakeYAML reads with: no duplicate keys, no class names, the code point limit. */
  static LoaderOptions loaderOptions(Limits limits) {
    LoaderOptions o = new LoaderOptions();
    o.setAllowDuplicateKeys(false);
    o.setMaxAliasesForCollections(0); // defence in depth: YamlRules refuses every alias first
    o.setAllowRecursiveKeys(false);
    // the depth is counted on the events (DepthLimit); SnakeYAML's own limit is only a backstop
    o.setNestingDepthLimit(2 * limits.maxDepth() + 8);
    o.setCodePointLimit(limits.maxChars());
    o.setTagInspector(tag -> false); // no global tag may ever name a class
    return o;
  }

  /**
   * Parses one YAML document.
   *
   * @return the root node, or null when the text holds no document (empty, or comments only)
   * @throws RuntimeException from {@code errors}, for anything unsafe or malformed, with its
   *     position
   */
  public static Node parse(String text, Limits limits, Errors errors) {
    prescan(text, limits, errors);
    LoaderOptions options = loaderOptions(limits);
    DepthLimit parser = null;
    try {
      YamlRules.Refusal r = YamlRules.firstRefused(text, limits.holder(), options);
      if (r != null) {
        throw errors.at(r.line(), r.column(), r.message());
      }
      parser = new DepthLimit(new ParserImpl(new StreamReader(text), options), limits, errors);
      Composer composer = new Composer(parser, new Resolver(), options);
      if (!composer.checkNode()) {
        return null;
      }
      org.yaml.snakeyaml.nodes.Node root = composer.getNode();
      if (composer.checkNode()) {
        parser.getEvent(); // the second document's start
        Mark m = parser.peekEvent().getStartMark();
        throw errors.at(
            m.getLine() + 1,
            m.getColumn() + 1,
            "a second YAML document starts here; "
                + limits.holder()
                + " is one document (remove the '---')");
      }
      return new Tree(errors).node(root, "");
    } catch (MarkedYAMLException e) {
      throw syntax(e, text, errors);
    } catch (YAMLException e) {
      // a SnakeYAML limit carries no mark: the event it had just read is where it was
      Mark m = parser == null ? null : parser.last;
      String msg = "YAML syntax error: " + oneLine(e.getMessage());
      return throwAt(errors, m, msg);
    }
  }

  private static Node throwAt(Errors errors, Mark m, String msg) {
    throw m == null ? errors.at(0, 0, msg) : errors.at(m.getLine() + 1, m.getColumn() + 1, msg);
  }

  /**
   * Bytes as UTF-8 text.
   *
   * @throws RuntimeException from {@code errors} at the line of the first byte that is not UTF-8
   */
  public static String utf8(byte[] bytes, Errors errors) {
    var decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length + 1);
    if (!decoder.decode(in, out, true).isError() && !decoder.flush(out).isError()) {
      return out.flip().toString();
    }
    int at = in.position();
    int line = 1;
    for (int i = 0; i < at; i++) {
      line += bytes[i] == '\n' ? 1 : 0;
    }
    throw errors.at(line, 0, "not UTF-8 text (a bad byte at offset " + at + "); save it as UTF-8");
  }

  /** "at the top level" or "in engine": where a key is, for messages. */
  public static String section(String where) {
    return where.isEmpty() ? "at the top level" : "in " + where;
  }

  /** Characters first: a tab in indentation, or a control character, each at its position. */
  private static void prescan(String text, Limits limits, Errors errors) {
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
        throw errors.at(
            line,
            column,
            "a tab indents this line; YAML indents with spaces only (replace the tab with"
                + " spaces)");
      }
      if (!StreamReader.isPrintable(cp) || (cp == 0xFEFF && i > 1)) {
        throw errors.at(
            line,
            column,
            String.format(
                "character U+%04X is not allowed here (%s is plain UTF-8 text)",
                cp, limits.holder()));
      }
      indent &= cp == ' ' || cp == '\t';
      column++;
      if (column > limits.maxLine() + 1) {
        throw errors.at(
            line,
            0,
            "the line is longer than "
                + limits.maxLine()
                + " characters; "
                + limits.holder()
                + " has short lines (is this the right file?)");
      }
    }
  }

  /** SnakeYAML's nodes → ours, refusing duplicate and non-scalar keys. */
  private record Tree(Errors errors) {
    Node node(org.yaml.snakeyaml.nodes.Node n, String where) {
      Pos pos = pos(n.getStartMark());
      // On SnakeYAML's node id, not a type pattern: a type switch is linked at run time by a
      // generated class the AOT cache cannot hold (docs/PERFORMANCE.md, start-up).
      return switch (n.getNodeId()) {
        case mapping -> {
          MappingNode m = (MappingNode) n;
          Map<String, Entry> entries = new LinkedHashMap<>();
          for (NodeTuple t : m.getValue()) {
            if (!(t.getKeyNode() instanceof ScalarNode k)) {
              Pos kp = pos(t.getKeyNode().getStartMark());
              throw errors.at(
                  kp.line(),
                  kp.column(),
                  "YAML syntax error: a mapping key must be a plain value, not a list or a"
                      + " mapping");
            }
            String key = k.getValue();
            Pos keyPos = pos(k.getStartMark());
            Entry first = entries.get(key);
            if (first != null) {
              throw errors.at(
                  keyPos.line(),
                  keyPos.column(),
                  "duplicate key '"
                      + Clip.clip(key, 60)
                      + "' "
                      + section(where)
                      + " (first at line "
                      + first.keyPos().line()
                      + "); keep one");
            }
            Node value = node(t.getValueNode(), where.isEmpty() ? key : where + "." + key);
            entries.put(key, new Entry(key, keyPos, value));
          }
          yield new MapNode(pos, entries);
        }
        case sequence -> {
          List<Node> items = new ArrayList<>();
          for (org.yaml.snakeyaml.nodes.Node item : ((SequenceNode) n).getValue()) {
            items.add(node(item, where + "[" + items.size() + "]"));
          }
          yield new SeqNode(pos, items);
        }
        case scalar -> new Scalar(pos, kind((ScalarNode) n), ((ScalarNode) n).getValue());
        default -> {
          // an alias: YamlRules refused every one before composing
          throw errors.at(pos.line(), pos.column(), "YAML syntax error: an alias");
        }
      };
    }

    private static Kind kind(ScalarNode s) {
      Tag t = s.getTag();
      if (t.equals(Tag.INT)) {
        return Kind.INT;
      }
      if (t.equals(Tag.FLOAT)) {
        return Kind.FLOAT;
      }
      if (t.equals(Tag.BOOL)) {
        return Kind.BOOL;
      }
      if (t.equals(Tag.NULL)) {
        return Kind.NULL;
      }
      return Kind.STRING; // !!str, and what YAML 1.1 would make a timestamp or a merge key
    }
  }

  private static Pos pos(Mark m) {
    return m == null ? new Pos(0, 0) : new Pos(m.getLine() + 1, m.getColumn() + 1);
  }

  /**
   * The parser, counting the nesting depth as the events stream and remembering where the last
   * event it handed out started.
   */
  private static final class DepthLimit implements Parser {
    private final Parser parser;
    private final Limits limits;
    private final Errors errors;
    private int depth;
    private Mark last;

    DepthLimit(Parser parser, Limits limits, Errors errors) {
      this.parser = parser;
      this.limits = limits;
      this.errors = errors;
    }

    @Override
    public boolean checkEvent(Event.ID choice) {
      return parser.checkEvent(choice);
    }

    @Override
    public Event peekEvent() {
      return parser.peekEvent();
    }

    @Override
    public Event getEvent() {
      Event e = parser.getEvent();
      if (e == null) {
        return null;
      }
      if (e.getStartMark() != null) {
        last = e.getStartMark();
      }
      if (e.is(Event.ID.MappingStart) || e.is(Event.ID.SequenceStart)) {
        if (++depth > limits.maxDepth()) {
          Pos p = pos(e.getStartMark());
          throw errors.at(
              p.line(),
              p.column(),
              "nesting deeper than " + limits.maxDepth() + " levels; " + limits.depthNeed());
        }
      } else if (e.is(Event.ID.MappingEnd) || e.is(Event.ID.SequenceEnd)) {
        depth--;
      }
      return e;
    }
  }

  /** One line, with the most precise position SnakeYAML knows. */
  private static RuntimeException syntax(MarkedYAMLException m, String text, Errors errors) {
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
                  : YamlRules.indentHint(problem, text, mark.getLine() + 1, mark.getColumn() + 1));
    }
    return mark == null
        ? errors.at(0, 0, detail)
        : errors.at(mark.getLine() + 1, mark.getColumn() + 1, detail);
  }

  /** The longest parser message quoted, in code points. */
  private static final int MAX_MESSAGE = 200;

  private static String oneLine(String s) {
    if (s == null) {
      return "";
    }
    // SnakeYAML's first line says what is wrong; the rest is a snippet the caller shows itself
    return Clip.clip(s.strip().lines().findFirst().orElse(""), MAX_MESSAGE);
  }
}
