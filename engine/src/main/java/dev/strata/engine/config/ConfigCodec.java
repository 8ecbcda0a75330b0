package dev.strata.engine.config;

import dev.strata.engine.host.HostKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes engine configs (YAML, schema {@code strata.engine/v1}, docs/CONFIG.md): the one
 * door to {@link ConfigReader} (YAML → record), {@link ConfigRules} (what the types cannot hold)
 * and {@link ConfigYaml} (record → YAML).
 *
 * <p>Reading is safe and strict ({@link YamlReader}). Safe: no tag may instantiate a class (every
 * tag but the standard scalar ones is refused, and so are anchors, aliases and {@code %TAG}); at
 * most 1 MiB, 32 levels of nesting. Strict: an unknown key, a missing key, a duplicate key, a wrong
 * type, a wrong schema, an empty file, a bad flag in {@code args} or a refused name in {@code env}
 * is a {@link ConfigException} with the file, line and column.
 *
 * <p>Writing is deterministic: fixed key order, {@code args} one item per line, no timestamps,
 * {@code sha256} left out when null, strings quoted only when YAML would otherwise read them as
 * something else. {@code write(read(write(c)))} is {@code write(c)}, byte for byte.
 */
public final class ConfigCodec {
  /** Largest config file: 1 MiB. */
  public static final int MAX_BYTES = ConfigReader.MAX_BYTES;

  /** The source name of errors found while writing (there is no file yet). */
  public static final String WRITE_SOURCE = "(config)";

  private ConfigCodec() {}

  /**
   * Every key the codec knows, as dotted paths ({@code engine.backend}); {@code env}'s own keys are
   * the variables and are not listed.
   */
  public static List<String> keys() {
    List<String> k = new ArrayList<>();
    k.add("schema");
    k.add("engine");
    ConfigReader.ENGINE.forEach(e -> k.add("engine." + e));
    k.add("model");
    ConfigReader.MODEL.forEach(m -> k.add("model." + m));
    k.add("host");
    HostKeys.names().forEach(h -> k.add("host." + h));
    k.add("args");
    k.add("env");
    return List.copyOf(k);
  }

  /**
   * Reads a config file.
   *
   * @throws ConfigException for a missing file, a folder, a file over 1 MiB, text that is not
   *     UTF-8, and every problem {@link #read(String, String)} finds; the source in the message is
   *     {@code file} as given
   */
  public static EngineConfig read(Path file) {
    return ConfigReader.read(file);
  }

  /**
   * Reads a config from bytes (UTF-8).
   *
   * @param source how errors name the config, e.g. its file name
   */
  public static EngineConfig read(byte[] bytes, String source) {
    return ConfigReader.read(bytes, source);
  }

  /**
   * Reads a config from text.
   *
   * @param source how errors name the config, e.g. its file name
   * @throws ConfigException with line and column for every problem
   */
  public static EngineConfig read(String text, String source) {
    return ConfigReader.read(text, source);
  }

  /**
   * Checks what the types cannot: a known backend, paths that can be paths, a well-formed sha256,
   * host values in range, args valid for the backend with {@code --model} the first shard, an env a
   * config may set.
   *
   * @throws ConfigException naming {@link #WRITE_SOURCE} and the key at fault
   */
  public static void validate(EngineConfig config) {
    ConfigRules.validate(config);
  }

  /**
   * Writes a config as YAML text. Same config, same bytes.
   *
   * @throws ConfigException when the config breaks a rule of {@link #validate}: nothing is written
   *     that {@link #read} would refuse
   */
  public static String write(EngineConfig c) {
    validate(c);
    return ConfigYaml.write(c);
  }

  /** {@link #write(EngineConfig)} as UTF-8 bytes. */
  public static byte[] writeBytes(EngineConfig c) {
    return write(c).getBytes(StandardCharsets.UTF_8);
  }
}
