package dev.strata.engine.host;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import java.util.Optional;

/**
 * A host JSON that cannot be used: missing, not a file, too big, not JSON, an unknown or missing
 * field, a wrong type or an impossible value. The message is one line that starts with the file
 * (and {@code line:col} when the parser knows it) and names the field at fault; exit code 2.
 */
public final class HostFileException extends StrataException {
  private static final long serialVersionUID = 1L;
  private final String field;

  public HostFileException(String message, String field) {
    super(ExitCodes.USAGE, message);
    this.field = field;
  }

  /** The JSON field at fault, when one is. */
  public Optional<String> field() {
    return Optional.ofNullable(field);
  }
}
