package dev.strata.engine.gen;

import dev.strata.engine.Backend;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.FlagSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * An engine template (under {@code templates/engine/}): a backend's base args and env, written
 * after the generated args. Loaded by {@link Templates}; tests may build one directly.
 *
 * @param name where it came from, for messages (e.g. "templates/engine/metal.yaml")
 * @param backend the engine it is for: the config's {@code engine.backend}
 * @param args base args, in order
 * @param env the engine's environment
 */
public record Template(String name, Backend backend, List<String> args, Map<String, String> env) {

  /** Flags the generator writes itself ({@link Generator#WRITES}): a template may not set them. */
  public static final Set<String> GENERATED_FLAGS = Generator.WRITES;

  public Template {
    args = List.copyOf(args);
    env = java.util.Collections.unmodifiableMap(new TreeMap<>(env));
    for (String a : args) {
      String flag = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      if (GENERATED_FLAGS.contains(flag)) {
        throw new IllegalArgumentException(
            name + ": " + flag + " is written by the generator, not by a template");
      }
    }
  }

  /**
   * The template's args as flag → value ("" for a switch), for {@link
   * dev.strata.engine.flags.EngineFlags#render}; a mutable copy.
   *
   * @throws IllegalArgumentException for a value-taking flag without its value
   */
  public Map<String, String> values() {
    Map<String, String> values = new java.util.HashMap<>();
    for (int i = 0; i < args.size(); i++) {
      String flag = args.get(i);
      FlagSpec spec = EngineFlags.lookup(flag);
      if (spec != null && spec.isSwitch()) {
        values.put(flag, "");
      } else if (i + 1 < args.size()) {
        values.put(flag, args.get(++i));
      } else {
        throw new IllegalArgumentException(name + ": " + flag + " has no value");
      }
    }
    return values;
  }
}
