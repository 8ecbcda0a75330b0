package dev.strata.engine.config;

import dev.strata.engine.host.HostKeys;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.emitter.Emitter;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;
import org.yaml.snakeyaml.serializer.Serializer;

/**
 * Writing an engine config as YAML through SnakeYAML's emitter: fixed key order, block style,
 * two-space indent, {@code args} one item per line, no line folding, {@code sha256} left out when
 * null. The emitter decides the quoting: a string is plain when YAML reads it back as that string,
 * otherwise quoted ({@code '32768'}, {@code 'true'}). Reached through {@link ConfigCodec#write}.
 *
 * <p>It drives SnakeYAML's representer, serializer and emitter directly, as {@code Yaml.dump} does,
 * without the {@code Yaml} facade: that one also builds a constructor (the loading side, which
 * starts java.util.logging) that writing never uses, a cost on every {@code strata-setup --print}
 * (docs/PERFORMANCE.md).
 */
final class ConfigYaml {
  private ConfigYaml() {}

  private static final DumperOptions OPTIONS = options(true);

  /**
   * For a config holding a Unicode format character (category Cf: bidi overrides such as U+202E,
   * zero-width characters, a soft hyphen), which a terminal obeys or hides and {@link
   * dev.strata.engine.text.TerminalText} therefore escapes: SnakeYAML deems them printable and
   * writes them as they are, even inside double quotes, unless Unicode is off — then every
   * non-ASCII character of a quoted value is written as an escape. (Controls, C1, lone surrogates
   * and YAML's extra line breaks it escapes anyway.) Only such configs are written this way, so
   * every other config keeps its bytes; {@code --print} shows the file on a terminal.
   */
  private static final DumperOptions ESCAPING = options(false);

  private static final Strings REPRESENTER = new Strings(OPTIONS);
  private static final Resolver RESOLVER = new Resolver();

  private static DumperOptions options(boolean unicode) {
    DumperOptions o = new DumperOptions();
    o.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    o.setIndent(2);
    o.setIndicatorIndent(0);
    o.setWidth(Integer.MAX_VALUE); // one value, one line: never folded
    o.setSplitLines(false);
    o.setAllowUnicode(unicode);
    o.setLineBreak(DumperOptions.LineBreak.UNIX);
    return o;
  }

  /**
   * Every string as a {@code !!str} scalar, never {@code !!binary} (SnakeYAML's choice for text
   * with control characters, which the reader refuses) nor a literal block: text YAML can show
   * literally is left to the emitter (plain when it reads back as the same string, else
   * single-quoted); text with a tab, a control character, a line break, a BOM or a Unicode format
   * character (category Cf, e.g. U+202E) is double-quoted with escapes, so every value stays on its
   * one line and shows as what it is.
   */
  private static final class Strings extends Representer {
    Strings(DumperOptions o) {
      super(o);
      // what the Yaml facade sets on its representer
      setDefaultFlowStyle(o.getDefaultFlowStyle());
      setDefaultScalarStyle(o.getDefaultScalarStyle());
      this.representers.put(
          String.class,
          data -> {
            String s = (String) data;
            DumperOptions.ScalarStyle style =
                s.codePoints().allMatch(Strings::literal)
                    ? DumperOptions.ScalarStyle.PLAIN
                    : DumperOptions.ScalarStyle.DOUBLE_QUOTED;
            return representScalar(Tag.STR, s, style);
          });
    }

    /**
     * Printable, and not a tab or one of YAML 1.1's extra line breaks, nor a BOM or another format
     * character.
     */
    private static boolean literal(int cp) {
      return cp >= 0x20
          && cp != 0x85
          && cp != 0x2028
          && cp != 0x2029
          && Character.getType(cp) != Character.FORMAT
          && StreamReader.isPrintable(cp);
    }
  }

  /** Whether no string in {@code value} (maps, lists, scalars) holds a format character. */
  private static boolean clean(Object value) {
    // instanceof, not a pattern switch: that one links a generated class on first use, a cost on
    // every --print (docs/PERFORMANCE.md)
    if (value instanceof String s) {
      return s.codePoints().noneMatch(cp -> Character.getType(cp) == Character.FORMAT);
    }
    if (value instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!clean(e.getKey()) || !clean(e.getValue())) {
          return false;
        }
      }
    } else if (value instanceof List<?> l) {
      for (Object o : l) {
        if (!clean(o)) {
          return false;
        }
      }
    }
    return true;
  }

  /** The config as YAML text; the caller has validated it. */
  static String write(EngineConfig c) {
    Map<String, Object> top = new LinkedHashMap<>();
    top.put("schema", c.schema());
    Map<String, Object> engine = new LinkedHashMap<>();
    engine.put("backend", c.engine().backend());
    engine.put("library", c.engine().library());
    if (c.engine().sha256() != null) {
      engine.put("sha256", c.engine().sha256());
    }
    top.put("engine", engine);
    top.put("model", Map.of("shards", c.model().shards()));
    Map<String, Object> host = new LinkedHashMap<>();
    for (HostKeys.Key k : HostKeys.KEYS) {
      host.put(k.key(), HostKeys.value(k, c.host()));
    }
    top.put("host", host);
    top.put("args", c.args());
    top.put("env", new LinkedHashMap<>(c.env()));
    StringWriter out = new StringWriter();
    DumperOptions options = clean(top) ? OPTIONS : ESCAPING;
    Serializer serializer = new Serializer(new Emitter(out, options), RESOLVER, options, null);
    try {
      serializer.open();
      serializer.serialize(REPRESENTER.represent(top));
      serializer.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return out.toString();
  }
}
