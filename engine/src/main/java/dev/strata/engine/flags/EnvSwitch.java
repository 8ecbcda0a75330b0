package dev.strata.engine.flags;

import java.util.List;

/**
 * An environment switch the engines read (the seed's escape hatches).
 *
 * @param name the variable, e.g. {@code STRATA_METAL_PROMPT}
 * @param values the values a config may set it to
 * @param help what it changes
 */
public record EnvSwitch(String name, List<String> values, String help) {
  public EnvSwitch {
    values = List.copyOf(values);
  }
}
