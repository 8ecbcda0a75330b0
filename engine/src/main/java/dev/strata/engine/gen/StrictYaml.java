package dev.strata.engine.gen;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.YamlReader;
import dev.strata.engine.config.YamlReader.Kind;
import dev.strata.engine.config.YamlReader.MapNode;
import dev.strata.engine.config.YamlReader.Node;
import dev.strata.engine.config.YamlReader.Scalar;
import dev.strata.engine.config.YamlReader.SeqNode;
import dev.strata.engine.text.AsciiDigits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The setup's own files (engine templates, {@code --answers}) read through the toolkit's one YAML
 * reader ({@link YamlReader}: the same safety rules and messages as the engine config), with
 * smaller limits (64 KiB, 8 levels), as a top-level mapping of known keys. Every error is one line
 * {@code file:line: what is wrong}, exit 2.
 */
public final class StrictYaml {
  /** The setup's own files are a few lines; anything larger is not one of them. */
  public static final int MAX_CHARS = 64 * 1024;

  /** Deepest nesting of mappings and lists (the setup's files need 2). */
  public static final int MAX_DEPTH = 8;

  private static final YamlReader.Limits LIMITS =
      new YamlReader.Limits(
          MAX_CHARS, MAX_DEPTH, MAX_CHARS, "this file", "a strata-setup file needs 2");

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
    if (!Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      throw error(src, 0, "no such file");
    }
    String kind = dev.strata.engine.FileKind.isNotRegular(file);
    if (kind != null) {
      throw error(src, 0, kind); // never opened: a FIFO would block the read
    }
    byte[] bytes;
    try {
      if (Files.size(file) > MAX_CHARS) {
        throw error(src, 0, "larger than " + MAX_CHARS + " bytes: not a strata-setup file");
      }
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw error(src, 0, "cannot read: " + dev.strata.engine.IoReason.of(e));
    }
    String text = YamlReader.utf8(bytes, (line, column, detail) -> error(src, line, detail));
    return parse(text, src, knownKeys);
  }

  /** Parses text as a mapping of {@code knownKeys}. */
  public static StrictYaml parse(String text, String source, Set<String> knownKeys) {
    if (text.length() > MAX_CHARS) {
      throw error(source, 0, "larger than " + MAX_CHARS + " characters");
    }
    Node root =
        YamlReader.parse(text, LIMITS, (line, column, detail) -> error(source, line, detail));
    if (root == null) {
      throw error(source, 0, "is empty");
    }
    if (!(root instanceof MapNode map)) {
      throw error(source, line(root), "must be a mapping of keys to values");
    }
    Map<String, Entry> entries = new LinkedHashMap<>();
    for (YamlReader.Entry t : map.entries().values()) {
      String key = t.key();
      if (!knownKeys.contains(key)) {
        throw error(
            source,
            t.keyPos().line(),
            "unknown key '"
                + key
                + "'"
                + dev.strata.engine.flags.Suggest.didYouMean(key, knownKeys)
                + " (known: "
                + String.join(", ", knownKeys)
                + ")");
      }
      entries.put(key, new Entry(key, t.value(), t.keyPos().line()));
    }
    return new StrictYaml(source, entries);
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
    if (!(e.value() instanceof Scalar s)) {
      throw error(source, e.line(), "'" + key + "' must be a single value");
    }
    return s.text();
  }

  /** A whole number; null when absent. */
  public Long number(String key) {
    String s = string(key);
    if (s == null) {
      return null;
    }
    Entry e = entries.get(key);
    if (((Scalar) e.value()).kind() != Kind.INT) {
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
    if (!(e.value() instanceof SeqNode seq)) {
      throw error(source, e.line(), "'" + key + "' must be a list");
    }
    for (Node n : seq.items()) {
      if (!(n instanceof Scalar s) || isNull(n)) {
        throw error(source, line(n), "'" + key + "' items must be single values");
      }
      out.add(s.text());
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
    if (!(e.value() instanceof MapNode m)) {
      throw error(source, e.line(), "'" + key + "' must be a mapping");
    }
    for (YamlReader.Entry t : m.entries().values()) {
      if (!(t.value() instanceof Scalar v)) {
        throw error(source, t.keyPos().line(), "'" + key + "' must map names to single values");
      }
      out.put(t.key(), v.text());
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
    return n instanceof Scalar s && s.kind() == Kind.NULL;
  }

  private static int line(Node n) {
    return n.pos().line();
  }

  /** {@code file:line: message} (or {@code file: message} when no line applies), exit 2. */
  public static StrataException error(String source, int line, String message) {
    return new StrataException(
        ExitCodes.USAGE, source + (line > 0 ? ":" + line : "") + ": " + message);
  }
}
