package dev.strata.engine.config;

import dev.strata.engine.config.YamlReader.Entry;
import dev.strata.engine.config.YamlReader.MapNode;
import dev.strata.engine.config.YamlReader.Node;
import dev.strata.engine.config.YamlReader.Pos;
import dev.strata.engine.flags.Suggest;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostKeys;
import dev.strata.engine.text.Clip;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Reading an engine config: bytes → text → {@link YamlReader}'s tree → {@link EngineConfig}, with
 * the type and key checks, remembering where each value was so that {@link ConfigRules} can point
 * at the line and column of a value it refuses. Reached through {@link ConfigCodec#read}.
 */
final class ConfigReader {
  /** Largest config file: 1 MiB. */
  static final int MAX_BYTES = 1 << 20;

  /**
   * Longest line, in characters. SnakeYAML's reader copies its unread window each time it needs
   * more text, so one long token costs time quadratic in its length (1 MiB on one line: seconds).
   * Bounding the line bounds that; the longest real line is a quoted 4096-byte path.
   */
  static final int MAX_LINE = 32 * 1024;

  /** Deepest nesting of mappings and lists (a config needs 3). */
  static final int MAX_DEPTH = 32;

  static final YamlReader.Limits LIMITS =
      new YamlReader.Limits(MAX_BYTES, MAX_DEPTH, MAX_LINE, "a config", "a config needs 3");

  static final List<String> TOP = List.of("schema", "engine", "model", "host", "args", "env");
  private static final List<String> TOP_REQUIRED =
      List.of("schema", "engine", "model", "host", "args");
  static final List<String> ENGINE = List.of("backend", "library", "sha256");
  private static final List<String> ENGINE_REQUIRED = List.of("backend", "library");
  static final List<String> MODEL = List.of("shards");

  private ConfigReader() {}

  /**
   * Reads a config file.
   *
   * @throws ConfigException for a missing file, a folder, a file over 1 MiB, text that is not
   *     UTF-8, and every problem {@link #read(String, String)} finds; the source in the message is
   *     {@code file} as given
   */
  static EngineConfig read(Path file) {
    String source = file.toString();
    if (Files.isDirectory(file)) {
      throw new ConfigException(
          source, 0, 0, "is a folder; give the config file itself (for example engine.yaml)");
    }
    if (!Files.exists(file)) {
      throw new ConfigException(source, 0, 0, "no such file");
    }
    String kind = dev.strata.engine.FileKind.isNotRegular(file);
    if (kind != null) {
      // named for what it is, and never opened (a FIFO would block the read)
      throw new ConfigException(source, 0, 0, kind + "; give the config file itself");
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      // read one byte past the limit, never the whole of a huge file
      bytes = in.readNBytes(MAX_BYTES + 1);
    } catch (NoSuchFileException e) {
      throw new ConfigException(source, 0, 0, "no such file");
    } catch (IOException e) {
      throw new ConfigException(source, 0, 0, "cannot read: " + dev.strata.engine.IoReason.of(e));
    }
    return read(bytes, source);
  }

  /**
   * Reads a config from bytes (UTF-8).
   *
   * @param source how errors name the config, e.g. its file name
   */
  static EngineConfig read(byte[] bytes, String source) {
    if (bytes.length > MAX_BYTES) {
      throw tooBig(source, bytes.length);
    }
    String text =
        YamlReader.utf8(
            bytes, (line, column, detail) -> new ConfigException(source, line, column, detail));
    return read(text, source);
  }

  private static ConfigException tooBig(String source, long size) {
    return new ConfigException(
        source,
        0,
        0,
        (size > MAX_BYTES ? "is over " : "is ")
            + MAX_BYTES
            + " bytes; an engine config is at most 1 MiB (is this the right file?)");
  }

  /**
   * Reads a config from text.
   *
   * @param source how errors name the config, e.g. its file name
   * @throws ConfigException with line and column for every problem
   */
  static EngineConfig read(String text, String source) {
    int bytes = StandardCharsets.UTF_8.encode(text).remaining();
    if (bytes > MAX_BYTES) {
      throw tooBig(source, bytes);
    }
    Node root =
        YamlReader.parse(
            text,
            LIMITS,
            (line, column, detail) -> new ConfigException(source, line, column, detail));
    if (root == null) {
      throw new ConfigException(
          source,
          0,
          0,
          "the file is empty; an engine config starts with 'schema: " + EngineConfig.SCHEMA + "'");
    }
    Reader r = new Reader(source);
    EngineConfig config = r.config(root);
    ConfigRules.check(config, r::at);
    return config;
  }

  /** Tree → record, with the type and key checks; remembers where each value was. */
  private static final class Reader extends NodeReads {
    private final Map<String, Pos> positions = new HashMap<>();

    Reader(String source) {
      super(source);
    }

    ConfigException at(String path, String detail) {
      String p = path;
      while (!positions.containsKey(p) && !p.isEmpty()) {
        int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
        p = cut < 0 ? "" : p.substring(0, cut);
      }
      Pos pos = positions.getOrDefault(p, new Pos(0, 0));
      return error(pos, detail);
    }

    EngineConfig config(Node root) {
      if (!(root instanceof MapNode top)) {
        throw error(
            root.pos(),
            "the top level must be a mapping of keys ("
                + String.join(", ", TOP)
                + "), found "
                + found(root));
      }
      // the schema first: a file of another version would otherwise fail on its first new key
      Entry schema = top.entries().get("schema");
      if (schema == null) {
        throw error(
            top.pos(),
            "missing key 'schema' (an engine config starts with 'schema: "
                + EngineConfig.SCHEMA
                + "')");
      }
      String version = string(schema.value(), "schema");
      if (!EngineConfig.SCHEMA.equals(version)) {
        throw error(
            schema.value().pos(),
            "schema '"
                + Clip.clip(version)
                + "' is not supported; this toolkit reads "
                + EngineConfig.SCHEMA);
      }
      keys(top, new Pos(1, 1), TOP, TOP_REQUIRED, "");
      record(schema, "schema");

      Entry engineEntry = top.entries().get("engine");
      MapNode engine = map(engineEntry, "engine");
      keys(engine, engineEntry.keyPos(), ENGINE, ENGINE_REQUIRED, "engine");
      String backend = string(record(engine, "backend", "engine.backend"), "engine.backend");
      String library = string(record(engine, "library", "engine.library"), "engine.library");
      Entry shaEntry = engine.entries().get("sha256");
      String sha256 = null;
      if (shaEntry != null) {
        record(shaEntry, "engine.sha256");
        sha256 = string(shaEntry.value(), "engine.sha256");
      }

      Entry modelEntry = top.entries().get("model");
      MapNode model = map(modelEntry, "model");
      keys(model, modelEntry.keyPos(), MODEL, MODEL, "model");
      List<String> shards =
          texts(record(model, "shards", "model.shards"), "model.shards", this::string);

      HostFacts host = host(top.entries().get("host"));

      List<String> args = texts(record(top, "args", "args"), "args", this::argText);

      Map<String, String> env = new LinkedHashMap<>();
      Entry envEntry = top.entries().get("env");
      if (envEntry != null) {
        record(envEntry, "env");
        MapNode envMap = map(envEntry, "env");
        for (Entry e : envMap.entries().values()) {
          positions.put("env." + e.key(), e.keyPos());
          positions.put("env." + e.key() + "=", e.value().pos());
          env.put(e.key(), argText(e.value(), "env." + e.key()));
        }
      }
      return new EngineConfig(
          version,
          new EngineConfig.Engine(backend, library, sha256),
          new EngineConfig.Model(shards),
          host,
          args,
          env);
    }

    private HostFacts host(Entry hostEntry) {
      MapNode host = map(hostEntry, "host");
      List<String> names = HostKeys.names();
      keys(host, hostEntry.keyPos(), names, names, "host");
      Object[] values = new Object[names.size()];
      for (int i = 0; i < names.size(); i++) {
        HostKeys.Key k = HostKeys.KEYS.get(i);
        String path = "host." + k.key();
        Node n = record(host, k.key(), path);
        Class<?> t = k.type();
        if (t == String.class) {
          values[i] = string(n, path);
        } else if (t == boolean.class) {
          values[i] = bool(n, path);
        } else {
          long v = integer(n, path);
          if (t == int.class && (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE)) {
            throw error(
                n.pos(),
                path
                    + ": "
                    + v
                    + " is out of range ("
                    + (v > 0 ? "at most " + Integer.MAX_VALUE : "at least " + Integer.MIN_VALUE)
                    + ")");
          }
          values[i] = t == int.class ? (Object) (int) v : (Object) v;
        }
      }
      return HostKeys.create(values);
    }

    private void record(Entry e, String path) {
      positions.put(path, e.value().pos());
    }

    private Node record(MapNode m, String key, String path) {
      Entry e = m.entries().get(key);
      positions.put(path, e.value().pos());
      return e.value();
    }

    private void keys(
        MapNode m, Pos keyPos, List<String> known, List<String> required, String where) {
      for (Entry e : m.entries().values()) {
        if (!known.contains(e.key())) {
          // with a single known key the list itself is the suggestion
          String hint = known.size() > 1 ? Suggest.didYouMean(e.key(), known) : "";
          throw error(
              e.keyPos(),
              "unknown key '"
                  + Clip.clip(e.key())
                  + "' "
                  + YamlReader.section(where)
                  + hint
                  + " (known: "
                  + String.join(", ", known)
                  + ")");
        }
      }
      for (String r : required) {
        if (!m.entries().containsKey(r)) {
          throw error(
              keyPos,
              "missing key '"
                  + r
                  + "' "
                  + YamlReader.section(where)
                  + " (needed: "
                  + String.join(", ", required)
                  + ")");
        }
      }
    }

    /**
     * The items of the list at {@code path}, each read by {@code item} at {@code path[i]}, whose
     * position is kept for later messages.
     */
    private List<String> texts(Node n, String path, BiFunction<Node, String, String> item) {
      List<Node> nodes = list(n, path);
      List<String> out = new ArrayList<>(nodes.size());
      for (int i = 0; i < nodes.size(); i++) {
        String p = path + "[" + i + "]";
        positions.put(p, nodes.get(i).pos());
        out.add(item.apply(nodes.get(i), p));
      }
      return out;
    }
  }
}
