package dev.strata.engine.config;

import dev.strata.engine.Backend;
import dev.strata.engine.flags.EngineArgs;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.FlagException;
import dev.strata.engine.host.HostFacts;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One engine config (docs/CONFIG.md): inputs only — no figure derived from the KV format is stored;
 * the plan is computed at launch. {@code env} is kept sorted so writing is deterministic.
 *
 * <p>{@code args} are parsed once, here, by the engine flag table for the config's backend: {@link
 * #engineArgs()} is their typed view, and every reader of a config (the launcher's preflight, the
 * demo, setup reading back its previous answers) takes the values from it rather than walking the
 * list again. {@code parsed} is derived from {@code args} and {@code engine.backend} (whatever is
 * passed for it is replaced), so it never disagrees with them and equality is unchanged.
 *
 * @param args the engine's argv (no program name), as written
 * @param parsed how the flag table took {@code args} (derived; pass null)
 */
public record EngineConfig(
    String schema,
    Engine engine,
    Model model,
    HostFacts host,
    List<String> args,
    Map<String, String> env,
    ParsedArgs parsed) {

  /** The only schema this toolkit reads and writes. */
  public static final String SCHEMA = "strata.engine/v1";

  public EngineConfig {
    args = List.copyOf(args);
    env = java.util.Collections.unmodifiableMap(new TreeMap<>(env));
    parsed = ParsedArgs.of(args, engine);
  }

  /** A config; {@link #parsed()} is computed from {@code args} for the backend. */
  public EngineConfig(
      String schema,
      Engine engine,
      Model model,
      HostFacts host,
      List<String> args,
      Map<String, String> env) {
    this(schema, engine, model, host, args, env, null);
  }

  /**
   * The typed view of {@link #args()} for the config's backend, parsed once when the config was
   * made; null when the backend is unknown or the table refuses the args ({@link
   * ParsedArgs#problem()}). Never null for a config {@link ConfigCodec#read} returned.
   */
  public EngineArgs engineArgs() {
    return parsed.args();
  }

  /**
   * How the engine flag table took a config's args: their typed view, or why it refused them.
   *
   * @param args the typed view, or null (refused, or the backend is not known)
   * @param problem the table's one-line refusal, or null
   * @param argIndex the 0-based index of the argument at fault, -1 for the list as a whole (or no
   *     problem)
   */
  public record ParsedArgs(EngineArgs args, String problem, int argIndex) {
    static ParsedArgs of(List<String> args, Engine engine) {
      Backend backend = engine == null ? null : Backend.fromId(engine.backend());
      if (backend == null || !backend.id().equals(engine.backend())) {
        return new ParsedArgs(null, null, -1); // ConfigRules refuses the backend first
      }
      try {
        return new ParsedArgs(EngineFlags.parse(args, backend), null, -1);
      } catch (FlagException e) {
        return new ParsedArgs(null, e.getMessage(), e.place().argIndex());
      }
    }
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
