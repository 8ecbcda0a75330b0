package dev.strata.engine.flags;

import dev.strata.engine.Backend;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * One row of the engine flag table.
 *
 * @param name the flag as typed, e.g. {@code --ctx}
 * @param metavar the value's placeholder in docs and help ("N", "PATH"), empty for a switch
 * @param kind what the value may be
 * @param defaultValue the engine's value when the flag is absent, as text; null when it has none
 *     (the flag is required, or absence means "not set")
 * @param defaultNote what the default means, for docs ("0 = performance cores"); may be empty
 * @param help one sentence for docs and {@code --help}
 * @param backends the backends that accept the flag; any other backend refuses it
 * @param required true when argv must contain the flag
 */
public record FlagSpec(
    String name,
    String metavar,
    ValueKind kind,
    String defaultValue,
    String defaultNote,
    String help,
    Set<Backend> backends,
    boolean required) {

  public FlagSpec {
    if (!name.startsWith("--")) {
      throw new IllegalArgumentException("a flag starts with --: " + name);
    }
    backends = Collections.unmodifiableSet(EnumSet.copyOf(backends));
  }

  /** True for a flag that takes no value. */
  public boolean isSwitch() {
    return kind instanceof ValueKind.Switch;
  }

  /** True when {@code backend} accepts the flag. */
  public boolean acceptedBy(Backend backend) {
    return backends.contains(backend);
  }

  /** "all", or the backend ids joined, in the enum's order. */
  public String backendsText() {
    if (backends.size() == Backend.values().length) {
      return "all";
    }
    return String.join(", ", backends.stream().map(Backend::id).toList());
  }

  /** How the flag is typed: {@code --ctx N}, {@code --kv-resident}. */
  public String usage() {
    return metavar.isEmpty() ? name : name + " " + metavar;
  }
}
