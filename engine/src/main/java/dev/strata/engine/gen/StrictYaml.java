package dev.strata.engine.gen;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.YamlRules;
import dev.strata.engine.flags.AsciiDigits;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.Parser;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * The small, strict YAML reader of the setup's own files (engine templates, {@code --answers}): a
 * SnakeYAML composer with limits (size, nesting), that only composes nodes — nothing is ever
 * constructed from a tag — and reads a top-level mapping of known keys. Anchors, aliases, tags
 * other than the standard scalar ones and directives are refused by the engine config's own rule
 * ({@link YamlRules}), before anything is composed. Every error is one line {@code file:line: what
 * is wrong}, exit 2.
 */
public final class StrictYaml {
  /** The setup's own files are a few lines; anything larger is not one of them. */
  public static final int MAX_CHARS = 64 * 1024;

  /** Deepest nesting of mappings and lists (the setup's files need 2). */
  public static final int MAX_DEPTH = 8;

  private static final Set<Tag> PLAIN_TAGS =
      Set.of(Tag.STR, Tag.INT, Tag.BOOL, Tag.NULL, Tag.MAP, Tag.SEQ, Tag.FLOAT);

  /** One value of the top-level mapping, with the line it is on (1-based). */
  public record Entry(String key, Node value, int line) {}

  private final String source;
  private final Map<String, Entry> entries;

  private StrictYaml(String source, Map<String, Entry> entries) {
    this.source = source;
    this.entries = entries;
  }

  /** Reads a file: size-checked, UTF-8 checked. */
  public static StrictYaml read(Path file, Set<String> knownKeys) {
    String src = file.toString();
    if (Files.isDirectory(file)) {
      throw error(src, 0, "is a folder, not a YAML file");
    }
    byte[] bytes;
    try {
      if (Files.size(file) > MAX_CHARS) {
        throw error(src, 0, "larger than " + MAX_CHARS + " bytes: not a strata-setup file");
      }
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw error(src, 0, "cannot read (" + e.getClass().getSimpleName() + ")");
    }
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .decode(java.nio.ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      throw error(src, 0, "not UTF-8 text");
    }
    return parse(text, src, knownKeys);
  }

  /** Parses text as a mapping of {@code knownKeys}. */
  public static StrictYaml parse(String text, String source, Set<String> knownKeys) {
    if (text.length() > MAX_CHARS) {
      throw error(source, 0, "larger than " + MAX_CHARS + " characters");
    }
    LoaderOptions opts = new LoaderOptions();
    opts.setAllowDuplicateKeys(false);
    opts.setMaxAliasesForCollections(0); // defence in depth: the rule below refuses every alias
    opts.setAllowRecursiveKeys(false);
    opts.setNestingDepthLimit(MAX_DEPTH);
    opts.setCodePointLimit(MAX_CHARS);
    opts.setTagInspector(tag -> false); // no global tag may ever name a class
    LastMark parser = null;
    Node root;
    try {
      // the same rule as the engine config: plain values only, refused at the first & * ! or %
      YamlRules.Refusal r = YamlRules.firstRefused(text, "this file", opts);
      if (r != null) {
        throw error(source, r.line(), r.message());
      }
      parser = new LastMark(new ParserImpl(new StreamReader(new StringReader(text)), opts));
      root = new Composer(parser, new Resolver(), opts).getSingleNode();
    } catch (MarkedYAMLException e) {
      Mark m = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      String problem = e.getProblem() != null ? e.getProblem() : e.getContext();
      int line = m == null ? 0 : m.getLine() + 1;
      String hint = m == null ? "" : YamlRules.indentHint(problem, text, line, m.getColumn() + 1);
      throw error(source, line, "not valid YAML: " + oneLine(problem) + hint);
    } catch (YAMLException e) {
      // SnakeYAML's limits (nesting) carry no mark: the event it had just read is where it was
      int line = parser == null ? 0 : parser.line();
      String msg = oneLine(e.getMessage());
      if (msg.startsWith("Nesting Depth exceeded")) {
        msg = "nesting deeper than " + MAX_DEPTH + " levels; a strata-setup file needs 2";
      } else {
        msg = "not valid YAML: " + msg;
      }
      throw error(source, line, msg);
    }
    if (root == null) {
      throw error(source, 0, "is empty");
    }
    if (!(root instanceof MappingNode map)) {
      throw error(source, line(root), "must be a mapping of keys to values");
    }
    Map<String, Entry> entries = new LinkedHashMap<>();
    checkTags(root, source);
    for (NodeTuple t : map.getValue()) {
      Node k = t.getKeyNode();
      if (!(k instanceof ScalarNode ks)) {
        throw error(source, line(k), "keys must be plain names");
      }
      String key = ks.getValue();
      if (!knownKeys.contains(key)) {
        throw error(
            source,
            line(k),
            "unknown key '" + key + "' (known: " + String.join(", ", knownKeys) + ")");
      }
      if (entries.containsKey(key)) {
        throw error(
            source,
            line(k),
            "duplicate key '" + key + "' (first on line " + entries.get(key).line() + ")");
      }
      entries.put(key, new Entry(key, t.getValueNode(), line(k)));
    }
    return new StrictYaml(source, entries);
  }

  /** No tag may name anything but the plain YAML types: nothing here is ever instantiated. */
  private static void checkTags(Node node, String source) {
    if (!PLAIN_TAGS.contains(node.getTag())) {
      throw error(source, line(node), "YAML tag " + node.getTag() + " is not allowed here");
    }
    switch (node) {
      case MappingNode m -> {
        for (NodeTuple t : m.getValue()) {
          checkTags(t.getKeyNode(), source);
          checkTags(t.getValueNode(), source);
        }
      }
      case SequenceNode s -> {
        for (Node n : s.getValue()) {
          checkTags(n, source);
        }
      }
      default -> {}
    }
  }

  public boolean has(String key) {
    return entries.containsKey(key) && !isNull(entries.get(key).value());
  }

  /** A scalar as text (numbers too: "2" and 2 both read "2"); null when absent or null. */
  public String string(String key) {
    Entry e = entries.get(key);
    if (e == null || isNull(e.value())) {
      return null;
    }
    if (!(e.value() instanceof ScalarNode s)) {
      throw error(source, e.line(), "'" + key + "' must be a single value");
    }
    return s.getValue();
  }

  /** A whole number; null when absent. */
  public Long number(String key) {
    String s = string(key);
    if (s == null) {
      return null;
    }
    Entry e = entries.get(key);
    if (!e.value().getTag().equals(Tag.INT)) {
      throw error(source, e.line(), "'" + key + "' must be a whole number, got '" + s + "'");
    }
    String digits = s.replace("_", "");
    if (!AsciiDigits.all(
        digits.startsWith("-") || digits.startsWith("+") ? digits.substring(1) : digits)) {
      throw error(
          source,
          e.line(),
          "'" + key + "' must be a whole number in ASCII digits 0-9, got '" + s + "'");
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException x) {
      throw error(source, e.line(), "'" + key + "' must be a whole number, got '" + s + "'");
    }
  }

  /** A list of scalars; empty when absent. */
  public List<String> strings(String key) {
    Entry e = entries.get(key);
    List<String> out = new ArrayList<>();
    if (e == null || isNull(e.value())) {
      return out;
    }
    if (!(e.value() instanceof SequenceNode seq)) {
      throw error(source, e.line(), "'" + key + "' must be a list");
    }
    for (Node n : seq.getValue()) {
      if (!(n instanceof ScalarNode s) || isNull(n)) {
        throw error(source, line(n), "'" + key + "' items must be single values");
      }
      out.add(s.getValue());
    }
    return out;
  }

  /** A mapping of names to scalars; empty when absent. */
  public Map<String, String> stringMap(String key) {
    Entry e = entries.get(key);
    Map<String, String> out = new LinkedHashMap<>();
    if (e == null || isNull(e.value())) {
      return out;
    }
    if (!(e.value() instanceof MappingNode m)) {
      throw error(source, e.line(), "'" + key + "' must be a mapping");
    }
    for (NodeTuple t : m.getValue()) {
      if (!(t.getKeyNode() instanceof ScalarNode k)
          || !(t.getValueNode() instanceof ScalarNode v)) {
        throw error(source, line(t.getKeyNode()), "'" + key + "' must map names to single values");
      }
      if (out.put(k.getValue(), v.getValue()) != null) {
        throw error(source, line(k), "duplicate key '" + k.getValue() + "' in '" + key + "'");
      }
    }
    return out;
  }

  /** The line of a key, for errors about its value. */
  public int lineOf(String key) {
    Entry e = entries.get(key);
    return e == null ? 0 : e.line();
  }

  public String source() {
    return source;
  }

  private static boolean isNull(Node n) {
    return n.getTag().equals(Tag.NULL);
  }

  /** The parser, remembering where the last event it handed out started. */
  private static final class LastMark implements Parser {
    private final Parser parser;
    private Mark last;

    LastMark(Parser parser) {
      this.parser = parser;
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
      if (e != null && e.getStartMark() != null) {
        last = e.getStartMark();
      }
      return e;
    }

    int line() {
      return last == null ? 0 : last.getLine() + 1;
    }
  }

  private static int line(Node n) {
    return n.getStartMark() == null ? 0 : n.getStartMark().getLine() + 1;
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("\\s+", " ").strip();
  }

  /** {@code file:line: message} (or {@code file: message} when no line applies), exit 2. */
  public static StrataException error(String source, int line, String message) {
    return new StrataException(
        ExitCodes.USAGE, source + (line > 0 ? ":" + line : "") + ": " + message);
  }
}
