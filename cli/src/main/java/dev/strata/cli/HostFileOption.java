package dev.strata.cli;

/**
 * {@code --host-file FILE|NAME}, shared by {@code strata-setup}, {@code strata-setup probe} and
 * {@code strata-launch}: a host JSON file or a host profile name instead of probing this machine,
 * read by {@code HostProfiles.open}.
 */
public final class HostFileOption {
  private HostFileOption() {}

  /** The option, a row of each command's table. */
  public static final CliOption<String> OPTION =
      CliOption.pathText(
          "--host-file",
          "FILE",
          "A host JSON file (strata-setup probe --json) or a known Mac's profile name such as"
              + " m4-pro-48 (strata-setup probe --list-hosts), instead of probing this machine. An"
              + " existing file wins over a profile of the same name.",
          "FILE (a host JSON, or a profile: strata-setup probe --list-hosts)");
}
