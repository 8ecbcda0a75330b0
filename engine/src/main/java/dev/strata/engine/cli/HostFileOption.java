package dev.strata.engine.cli;

import dev.strata.engine.host.HostProfiles;
import picocli.CommandLine.Option;

/**
 * {@code --host-file FILE|NAME}, shared by {@code strata-setup}, {@code strata-setup probe} and
 * {@code strata-launch}: a host JSON file or a host profile name instead of probing this machine,
 * with one path rule ({@link #open}).
 */
public final class HostFileOption {
  /** The option's name. */
  public static final String NAME = "--host-file";

  @Option(
      names = NAME,
      paramLabel = "FILE",
      description =
          "A host JSON file (strata-setup probe --json) or a known Mac's profile name such as"
              + " m4-pro-48 (strata-setup probe --list-hosts), instead of probing this machine. An"
              + " existing file wins over a profile of the same name.")
  String value;

  /** The value as typed, or null when the option is absent. */
  public String value() {
    return value;
  }

  /** True when the option was given. */
  public boolean given() {
    return value != null;
  }

  /**
   * Reads the host: a path relative to the machine's working folder that names an existing file, or
   * looks like a path (a {@code /}, or ending in {@code .json}), is a host file; otherwise a
   * profile name.
   *
   * @throws dev.strata.engine.host.HostFileException (exit 2) for a bad file or an unknown name
   */
  public HostProfiles.Loaded open(Machine machine) {
    return HostProfiles.open(value, machine.workingDir());
  }
}
