package dev.strata.engine.config;

import dev.strata.engine.host.HostFacts;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One engine config (docs/CONFIG.md): inputs only — no figure derived from the KV format is stored;
 * the plan is computed at launch. {@code env} is kept sorted so writing is deterministic.
 */
public record EngineConfig(
    String schema,
    Engine engine,
    Model model,
    HostFacts host,
    List<String> args,
    Map<String, String> env) {

  /** The only schema this toolkit reads and writes. */
  public static final String SCHEMA = "strata.engine/v1";

  public EngineConfig {
    args = List.copyOf(args);
    env = java.util.Collections.unmodifiableMap(new TreeMap<>(env));
  }

  /**
   * @param backend a {@link dev.strata.engine.Backend} id
   * @param library path of the engine library
   * @param sha256 the library's pinned hash, or null when not pinned
   */
  public record Engine(String backend, String library, String sha256) {}

  /**
   * @param shards every shard path, first shard first
   */
  public record Model(List<String> shards) {
    public Model {
      shards = List.copyOf(shards);
    }
  }
}
