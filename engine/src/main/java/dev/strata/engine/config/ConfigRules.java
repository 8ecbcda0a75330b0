package dev.strata.engine.config;

import dev.strata.engine.Backend;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.EnvPolicy;
import dev.strata.engine.flags.FlagException;
import dev.strata.engine.flags.Suggest;
import dev.strata.engine.flags.ValueKind;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostFactsRules;
import dev.strata.engine.host.HostKeys;
import dev.strata.engine.text.Clip;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The rules of an engine config that the types cannot hold (docs/CONFIG.md): a known backend, paths
 * that can be paths, a well-formed sha256, host values in range, args valid for the backend with
 * {@code --model} the first shard, an env a config may set. The same rules run on a config read
 * from a file (pointing at the line and column) and on one about to be written (naming the key):
 * nothing is written that reading would refuse.
 */
final class ConfigRules {
  private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

  private ConfigRules() {}

  /** Where a rule points: a dotted path to a position (read) or nowhere (write). */
  interface Where {
    ConfigException at(String path, String detail);
  }

  /**
   * Checks what the types cannot: a known backend, paths that can be paths, a well-formed sha256,
   * host values in range, args valid for the backend with {@code --model} the first shard, an env a
   * config may set.
   *
   * @throws ConfigException naming {@link ConfigCodec#WRITE_SOURCE} and the key at fault
   */
  static void validate(EngineConfig config) {
    check(config, (path, detail) -> new ConfigException(ConfigCodec.WRITE_SOURCE, 0, 0, detail));
  }

  static void check(EngineConfig c, Where w) {
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
      String hint = backendId == null ? "" : Suggest.didYouMean(backendId, ids);
      throw w.at(
          "engine.backend",
          "engine.backend: '"
              + (backendId == null ? "" : Clip.clip(backendId))
              + "' is not a backend"
              + hint
              + " (one of "
              + String.join(", ", ids)
              + ")");
    }
    path(w, "engine.library", c.engine().library());
    String sha = c.engine().sha256();
    if (sha != null && !SHA256.matcher(sha).matches()) {
      throw w.at(
          "engine.sha256",
          "engine.sha256: expected 64 lowercase hex digits (the library's SHA-256), found '"
              + Clip.clip(sha)
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
            "model.shards: '" + Clip.clip(shards.get(i)) + "' is listed twice");
      }
    }
    host(c.host(), w);
    for (int i = 0; i < c.args().size(); i++) {
      noBom(w, "args[" + i + "]", "args", c.args().get(i));
    }
    c.env().forEach((k, v) -> noBom(w, "env." + k + "=", "env." + k, v));
    // the args were parsed once, when the config was made (EngineConfig): here only their verdict
    EngineConfig.ParsedArgs parsed = c.parsed();
    if (parsed.problem() != null) {
      throw w.at(
          parsed.argIndex() >= 0 ? "args[" + parsed.argIndex() + "]" : "args",
          "args: " + parsed.problem());
    }
    String model = c.engineArgs().valueOf(EngineFlags.MODEL);
    if (!model.equals(shards.get(0))) {
      throw w.at(
          "args[" + (c.args().indexOf(EngineFlags.MODEL) + 1) + "]",
          "args: --model '"
              + Clip.clip(model)
              + "' is not the first shard of model.shards ('"
              + Clip.clip(shards.get(0))
              + "'); they must name the same file");
    }
    try {
      EnvPolicy.validate(c.env());
    } catch (FlagException e) {
      throw w.at("env." + e.place().envName() + (e.place().envValue() ? "=" : ""), e.getMessage());
    }
  }

  /**
   * A byte order mark (U+FEFF) inside a value is invisible and never meant; the reader refuses one
   * written as is, and the writer's emitter would write it as is, so it is refused here once.
   */
  private static void noBom(Where w, String path, String key, String value) {
    if (value != null && value.indexOf('\uFEFF') >= 0) {
      throw w.at(
          path,
          key
              + ": holds an invisible byte order mark (U+FEFF) at character "
              + (value.indexOf('\uFEFF') + 1)
              + "; remove it");
    }
  }

  private static void path(Where w, String key, String value) {
    if (value == null) {
      throw w.at(key, key + ": missing");
    }
    noBom(w, key, key, value);
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
    }
    // The value rules of a host file, worded for a config: one rule set (HostFactsRules).
    HostFactsRules.check(
        h,
        new HostFactsRules.Fault() {
          @Override
          public String subject(String field) {
            return "host." + field;
          }

          @Override
          public String key(String field) {
            return "host." + field;
          }

          @Override
          public RuntimeException at(String field, String what) {
            return w.at("host." + field, what);
          }
        });
  }
}
