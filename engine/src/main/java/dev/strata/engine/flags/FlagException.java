package dev.strata.engine.flags;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;

/**
 * A bad engine flag or env switch: unknown, duplicated, missing or bad value, or not accepted by
 * the backend. Exit code 2 (usage). It says where the problem is so a config reader can point at
 * the offending line: the index of the argv item, or the env name (and whether its value is at
 * fault).
 */
public final class FlagException extends StrataException {
  private static final long serialVersionUID = 1L;

  /**
   * Where the problem is.
   *
   * @param argIndex the 0-based argv index of the offending item, or -1 (env problems, a missing
   *     flag, argv as a whole)
   * @param envName the env name at fault, or null when the problem is in argv
   * @param envValue true when the env value (not its name) is at fault
   */
  public record Place(int argIndex, String envName, boolean envValue) {}

  private final Place place;

  private FlagException(String message, Place place) {
    super(ExitCodes.USAGE, message);
    this.place = place;
  }

  /** A problem with argv item {@code argIndex} (0-based), or with argv as a whole when -1. */
  static FlagException arg(int argIndex, String message) {
    return new FlagException(message, new Place(argIndex, null, false));
  }

  /** A problem with the env name itself. */
  static FlagException envName(String name, String message) {
    return new FlagException(message, new Place(-1, name, false));
  }

  /** A problem with the value of env {@code name}. */
  static FlagException envValue(String name, String message) {
    return new FlagException(message, new Place(-1, name, true));
  }

  /** Where the problem is, so that a config reader can point at the offending line. */
  public Place place() {
    return place;
  }
}
