package dev.strata.cli;

import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.ValueKind;
import java.util.List;

/**
 * Command-line values of engine flags, checked by the engine flag table ({@link EngineFlags}): the
 * same rule and the same words as a config's {@code args}, so {@code --ctx lots} on {@code
 * strata-setup} and {@code - lots} after {@code - --ctx} in a config are refused alike. The options
 * that set an engine flag are {@link EngineOptions}'.
 */
public final class TableValues {
  private TableValues() {}

  /**
   * What is wrong with {@code value} for the table's row {@code flag}, phrased to follow "--flag:
   * "; null when the table allows it.
   */
  public static String problem(String flag, String value) {
    return EngineFlags.lookup(flag).kind().problem(value);
  }

  /** The words the table's row for {@code flag} allows, in its order. */
  public static List<String> choices(String flag) {
    return ((ValueKind.Choice) EngineFlags.lookup(flag).kind()).values();
  }
}
