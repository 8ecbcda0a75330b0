package dev.strata.engine.config;

import com.fasterxml.jackson.core.JsonToken;
import dev.strata.engine.config.YamlTree.Entry;
import dev.strata.engine.config.YamlTree.MapNode;
import dev.strata.engine.config.YamlTree.Node;
import dev.strata.engine.config.YamlTree.Pos;
import dev.strata.engine.config.YamlTree.Scalar;
import dev.strata.engine.config.YamlTree.SeqNode;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.FlagException;
import dev.strata.engine.flags.Suggest;
import dev.strata.engine.flags.ValueKind;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.Backend;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and writes engine configs (YAML, schema {@code strata.engine/v1}, DESIGN §5 and
 * docs/CONFIG.md).
 *
 * <p>Reading is safe and strict. Safe: no tag may instantiate a class (every tag but the standard
 * scalar ones is refused, and so are anchors, aliases and {@code %TAG}); at most 1 MiB, 32 levels
 * of nesting. Strict: an unknown key, a missing key, a duplicate key, a wrong type, a wrong schema,
 * an empty file, a bad flag in {@code args} or a refused name in {@code env} is a {@link
 * ConfigException} with the file, line and column.
 *
 * <p>Writing is deterministic: fixed key order, {@code args} one item per line, no timestamps,
 * {@code sha256} left out when null, strings quoted only when YAML would otherwise read them as
 * something else. {@code write(read(write(c)))} is {@code write(c)}, byte for byte.
 */
public final class ConfigCodec {
  /** Largest config file: 1 MiB. */
  public static final int MAX_BYTES = YamlTree.MAX_BYTES;

  /** The source name of errors found while writing (there is no file yet). */
  public static final String WRITE_SOURCE = "(config)";

  private static final List<String> TOP =
      List.of("schema", "engine", "model", "host", "args", "env");
  private static final List<String> TOP_REQUIRED =
      List.of("schema", "engine", "model", "host", "args");
  private static final List<String> ENGINE = List.of("backend", "library", "sha256");
  private static final List<String> ENGINE_REQUIRED = List.of("backend", "library");
  private static final List<String> MODEL = List.of("shards");
  private static final List<String> HOST_OS = List.of("macos", "linux");
  private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
  private static final Pattern DECIMAL = Pattern.compile("-?(0|[1-9][0-9]{0,18})");
  private static final int MAX_HOST_TEXT = 256;

  private ConfigCodec() {}

  /**
   * Every key the codec knows, as dotted paths ({@code engine.backend}); {@code env}'s own keys are
   * the variables and are not listed.
   */
  public static List<String> keys() {
    List<String> k = new ArrayList<>();
    k.add("schema");
    k.add("engine");
    ENGINE.forEach(e -> k.add("engine." + e));
    k.add("model");
    MODEL.forEach(m -> k.add("model." + m));
    k.add("host");
    HostKeys.names().forEach(h -> k.add("host." + h));
    k.add("args");
    k.add("env");
    return List.copyOf(k);
  }

  // ---------------------------------------------------------------- reading

  /**
   * Reads a config file.
   *
   * @throws ConfigException for a missing file, a folder, a file over 1 MiB, text that is not
   *     UTF-8, and every problem {@link #read(String, String)} finds; the source in the message is
   *     {@code file} as given
   */
  public static EngineConfig read(Path file) {
    String source = file.toString();
    if (Files.isDirectory(file)) {
      throw new ConfigException(
          source, 0, 0, "is a folder; give the config file itself (for example engine.yaml)");
    }
    if (!Files.exists(file)) {
      throw new ConfigException(source, 0, 0, "no such file");
    }
    if (!Files.isRegularFile(file)) {
      throw new ConfigException(source, 0, 0, "is not a regular file");
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      // read one byte past the limit, never the whole of a huge file
      bytes = in.readNBytes(MAX_BYTES + 1);
    } catch (NoSuchFileException e) {
      throw new ConfigException(source, 0, 0, "no such file");
    } catch (IOException e) {
      throw new ConfigException(source, 0, 0, "cannot read: " + e.getMessage());
    }
    return read(bytes, source);
  }

  /**
   * Reads a config from bytes (UTF-8).
   *
   * @param source how errors name the config, e.g. its file name
   */
  public static EngineConfig read(byte[] bytes, String source) {
    if (bytes.length > MAX_BYTES) {
      throw tooBig(source, bytes.length);
    }
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      int at = firstBadUtf8(bytes);
      int line = 1;
      for (int i = 0; i < at; i++) {
        line += bytes[i] == '\n' ? 1 : 0;
      }
      throw new ConfigException(
          source, line, 0, "not UTF-8 text (a bad byte at offset " + at + "); save it as UTF-8");
    }
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

  private static int firstBadUtf8(byte[] bytes) {
    var decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    var out = java.nio.CharBuffer.allocate(bytes.length + 1);
    var result = decoder.decode(in, out, true);
    return result.isError() ? in.position() : bytes.length;
  }

  /**
   * Reads a config from text.
   *
   * @param source how errors name the config, e.g. its file name
   * @throws ConfigException with line and column for every problem
   */
  public static EngineConfig read(String text, String source) {
    int bytes = StandardCharsets.UTF_8.encode(text).remaining();
    if (bytes > MAX_BYTES) {
      throw tooBig(source, bytes);
    }
    Node root = YamlTree.parse(text, source);
    if (root == null) {
      throw new ConfigException(
          source,
          0,
          0,
          "the file is empty; an engine config starts with 'schema: " + EngineConfig.SCHEMA + "'");
    }
    Reader r = new Reader(source);
    EngineConfig config = r.config(root);
    check(config, r::at);
    return config;
  }

  /** Where a semantic rule points: a dotted path to a position (read) or nowhere (write). */
  private interface Where {
    ConfigException at(String path, String detail);
  }

  /** Tree → record, with the type and key checks; remembers where each value was. */
  private static final class Reader {
    private final String source;
    private final Map<String, Pos> positions = new HashMap<>();

    Reader(String source) {
      this.source = source;
    }

    ConfigException at(String path, String detail) {
      String p = path;
      while (!positions.containsKey(p) && !p.isEmpty()) {
        int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
        p = cut < 0 ? "" : p.substring(0, cut);
      }
      Pos pos = positions.getOrDefault(p, new Pos(0, 0));
      return new ConfigException(source, pos.line(), pos.column(), detail);
    }

    private ConfigException error(Pos pos, String detail) {
      return new ConfigException(source, pos.line(), pos.column(), detail);
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
                + shorten(version)
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
      List<String> shards = new ArrayList<>();
      List<Node> shardNodes = list(record(model, "shards", "model.shards"), "model.shards");
      for (int i = 0; i < shardNodes.size(); i++) {
        String path = "model.shards[" + i + "]";
        positions.put(path, shardNodes.get(i).pos());
        shards.add(string(shardNodes.get(i), path));
      }

      HostFacts host = host(top.entries().get("host"));

      List<String> args = new ArrayList<>();
      List<Node> argNodes = list(record(top, "args", "args"), "args");
      for (int i = 0; i < argNodes.size(); i++) {
        String path = "args[" + i + "]";
        positions.put(path, argNodes.get(i).pos());
        args.add(argText(argNodes.get(i), path));
      }

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
            throw error(n.pos(), path + ": " + v + " is too large");
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
          String near = known.size() > 1 ? Suggest.nearest(e.key(), known) : null;
          throw error(
              e.keyPos(),
              "unknown key '"
                  + shorten(e.key())
                  + "' "
                  + YamlTree.section(where)
                  + " (known: "
                  + String.join(", ", known)
                  + (near != null ? "; did you mean " + near + "?" : "")
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
                  + YamlTree.section(where)
                  + " (needed: "
                  + String.join(", ", required)
                  + ")");
        }
      }
    }

    private MapNode map(Entry e, String path) {
      if (e.value() instanceof MapNode m) {
        return m;
      }
      throw error(
          e.value().pos(),
          path + ": expected a mapping (keys indented under it), found " + found(e.value()));
    }

    private List<Node> list(Node n, String path) {
      if (n instanceof SeqNode s) {
        return s.items();
      }
      throw error(n.pos(), path + ": expected a list (one '- item' per line), found " + found(n));
    }

    private String string(Node n, String path) {
      if (n instanceof Scalar s && s.token() == JsonToken.VALUE_STRING) {
        return s.text();
      }
      throw error(n.pos(), path + ": expected text, found " + found(n) + quoteHint(n));
    }

    /**
     * An args item or env value: text. A number written without quotes is taken as written ({@code
     * - 32768} is {@code '32768'}): argv is text either way. true/false/null are refused: the
     * engine would get a word the author may not have meant.
     */
    private String argText(Node n, String path) {
      if (n instanceof Scalar s
          && (s.token() == JsonToken.VALUE_STRING
              || s.token() == JsonToken.VALUE_NUMBER_INT
              || s.token() == JsonToken.VALUE_NUMBER_FLOAT)) {
        return s.text();
      }
      throw error(n.pos(), path + ": expected text, found " + found(n) + quoteHint(n));
    }

    private long integer(Node n, String path) {
      if (n instanceof Scalar s
          && s.token() == JsonToken.VALUE_NUMBER_INT
          && DECIMAL.matcher(s.text()).matches()) {
        try {
          return Long.parseLong(s.text());
        } catch (NumberFormatException e) {
          throw error(n.pos(), path + ": " + shorten(s.text()) + " is too large");
        }
      }
      throw error(n.pos(), path + ": expected a whole number in decimal, found " + found(n));
    }

    private boolean bool(Node n, String path) {
      if (n instanceof Scalar s && (s.text().equals("true") || s.text().equals("false"))) {
        if (s.token() == JsonToken.VALUE_TRUE || s.token() == JsonToken.VALUE_FALSE) {
          return s.token() == JsonToken.VALUE_TRUE;
        }
      }
      throw error(n.pos(), path + ": expected true or false, found " + found(n));
    }

    private static String quoteHint(Node n) {
      if (n instanceof Scalar s && !s.text().isEmpty() && s.token() != JsonToken.VALUE_STRING) {
        return " (quote it, '" + shorten(s.text()) + "', if you mean the text)";
      }
      return "";
    }

    private static String found(Node n) {
      return switch (n) {
        case MapNode m -> "a mapping";
        case SeqNode s -> "a list";
        case Scalar s ->
            switch (s.token()) {
              case VALUE_STRING ->
                  s.text().isEmpty() ? "nothing" : "the text '" + shorten(s.text()) + "'";
              case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "the number " + shorten(s.text());
              case VALUE_TRUE, VALUE_FALSE -> "the boolean " + shorten(s.text());
              case VALUE_NULL -> "nothing (null)";
              default -> "a value of another kind";
            };
      };
    }
  }

  private static String shorten(String s) {
    String t = s.length() > 60 ? s.substring(0, 20) + "…" + s.substring(s.length() - 39) : s;
    // keep the message one printable line whatever the input held
    StringBuilder b = new StringBuilder();
    t.codePoints()
        .forEach(
            cp ->
                b.append(
                    cp < 0x20 || cp == 0x7f
                        ? String.format("\\x%02X", cp)
                        : Character.toString(cp)));
    return b.toString();
  }

  // ---------------------------------------------------------------- rules (read and write)

  /**
   * Checks what the types cannot: a known backend, paths that can be paths, a well-formed sha256,
   * host values in range, args valid for the backend with {@code --model} the first shard, an env a
   * config may set.
   *
   * @throws ConfigException naming {@link #WRITE_SOURCE} and the key at fault
   */
  public static void validate(EngineConfig config) {
    check(config, (path, detail) -> new ConfigException(WRITE_SOURCE, 0, 0, detail));
  }

  private static void check(EngineConfig c, Where w) {
    if (!EngineConfig.SCHEMA.equals(c.schema())) {
      throw w.at(
          "schema",
          "schema '"
              + c.schema()
              + "' is not supported; this toolkit reads "
              + EngineConfig.SCHEMA);
    }
    if (c.engine() == null) {
      throw w.at("engine", "missing key 'engine'");
    }
    String backendId = c.engine().backend();
    Backend backend = null;
    for (Backend b : Backend.values()) {
      if (b.id().equals(backendId)) {
        backend = b;
      }
    }
    if (backend == null) {
      List<String> ids = Arrays.stream(Backend.values()).map(Backend::id).toList();
      String near = backendId == null ? null : Suggest.nearest(backendId, ids);
      throw w.at(
          "engine.backend",
          "engine.backend: '"
              + (backendId == null ? "" : shorten(backendId))
              + "' is not a backend (one of "
              + String.join(", ", ids)
              + (near != null ? "; did you mean " + near + "?" : "")
              + ")");
    }
    path(w, "engine.library", c.engine().library());
    String sha = c.engine().sha256();
    if (sha != null && !SHA256.matcher(sha).matches()) {
      throw w.at(
          "engine.sha256",
          "engine.sha256: expected 64 lowercase hex digits (the library's SHA-256), found '"
              + shorten(sha)
              + "'; leave the key out when the library is not pinned");
    }
    if (c.model() == null) {
      throw w.at("model", "missing key 'model'");
    }
    List<String> shards = c.model().shards();
    if (shards.isEmpty()) {
      throw w.at("model.shards", "model.shards: the list is empty; name every shard, first first");
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < shards.size(); i++) {
      path(w, "model.shards[" + i + "]", shards.get(i));
      if (!seen.add(shards.get(i))) {
        throw w.at(
            "model.shards[" + i + "]",
            "model.shards: '" + shorten(shards.get(i)) + "' is listed twice");
      }
    }
    host(c.host(), w);
    try {
      EngineFlags.validate(c.args(), backend);
    } catch (FlagException e) {
      throw w.at(
          e.argIndex() >= 0 ? "args[" + e.argIndex() + "]" : "args", "args: " + e.getMessage());
    }
    int m = c.args().indexOf(EngineFlags.MODEL);
    if (!c.args().get(m + 1).equals(shards.get(0))) {
      throw w.at(
          "args[" + (m + 1) + "]",
          "args: --model '"
              + shorten(c.args().get(m + 1))
              + "' is not the first shard of model.shards ('"
              + shorten(shards.get(0))
              + "'); they must name the same file");
    }
    try {
      EngineFlags.validateEnv(c.env());
    } catch (FlagException e) {
      throw w.at("env." + e.envName() + (e.isEnvValue() ? "=" : ""), e.getMessage());
    }
  }

  private static void path(Where w, String key, String value) {
    if (value == null) {
      throw w.at(key, key + ": missing");
    }
    String problem = new ValueKind.PathValue().problem(value);
    if (problem != null) {
      throw w.at(key, key + ": " + problem);
    }
  }

  private static void host(HostFacts h, Where w) {
    if (h == null) {
      throw w.at("host", "missing key 'host'");
    }
    for (HostKeys.Key k : HostKeys.KEYS) {
      String path = "host." + k.key();
      Object v = HostKeys.value(k, h);
      if (v == null) {
        throw w.at(path, path + ": missing");
      }
      if (v instanceof String s) {
        if (s.isBlank()) {
          throw w.at(path, path + ": is empty");
        }
        if (s.length() > MAX_HOST_TEXT || s.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f)) {
          throw w.at(
              path, path + ": expected one line of at most " + MAX_HOST_TEXT + " characters");
        }
      } else if (v instanceof Number n && n.longValue() < 0) {
        throw w.at(path, path + ": " + n + " is negative");
      }
    }
    if (!HOST_OS.contains(h.os())) {
      throw w.at(
          "host.os",
          "host.os: '" + shorten(h.os()) + "' is not one of " + String.join(", ", HOST_OS));
    }
    if (h.cpuCores() < 1) {
      throw w.at("host.cpu_cores", "host.cpu_cores: a host has at least 1 CPU");
    }
    if (h.memoryBytes() < 1) {
      throw w.at("host.memory_bytes", "host.memory_bytes: a host has some memory");
    }
  }

  // ---------------------------------------------------------------- writing

  /**
   * Writes a config as YAML text. Same config, same bytes.
   *
   * @throws ConfigException when the config breaks a rule of {@link #validate}: nothing is written
   *     that {@link #read} would refuse
   */
  public static String write(EngineConfig c) {
    validate(c);
    StringBuilder y = new StringBuilder(1024);
    y.append("schema: ").append(YamlScalars.quote(c.schema())).append('\n');
    y.append("engine:\n");
    y.append("  backend: ").append(YamlScalars.quote(c.engine().backend())).append('\n');
    y.append("  library: ").append(YamlScalars.quote(c.engine().library())).append('\n');
    if (c.engine().sha256() != null) {
      y.append("  sha256: ").append(YamlScalars.quote(c.engine().sha256())).append('\n');
    }
    y.append("model:\n");
    y.append("  shards:\n");
    for (String s : c.model().shards()) {
      y.append("  - ").append(YamlScalars.quote(s)).append('\n');
    }
    y.append("host:\n");
    for (HostKeys.Key k : HostKeys.KEYS) {
      Object v = HostKeys.value(k, c.host());
      y.append("  ")
          .append(k.key())
          .append(": ")
          .append(v instanceof String s ? YamlScalars.quote(s) : v.toString())
          .append('\n');
    }
    y.append("args:\n"); // never empty: validate() demands --model
    for (String a : c.args()) {
      y.append("- ").append(YamlScalars.quote(a)).append('\n');
    }
    if (c.env().isEmpty()) {
      y.append("env: {}\n");
    } else {
      y.append("env:\n");
      for (Map.Entry<String, String> e : c.env().entrySet()) {
        y.append("  ")
            .append(YamlScalars.quote(e.getKey()))
            .append(": ")
            .append(YamlScalars.quote(e.getValue()))
            .append('\n');
      }
    }
    return y.toString();
  }

  /** {@link #write(EngineConfig)} as UTF-8 bytes. */
  public static byte[] writeBytes(EngineConfig c) {
    return write(c).getBytes(StandardCharsets.UTF_8);
  }
}
