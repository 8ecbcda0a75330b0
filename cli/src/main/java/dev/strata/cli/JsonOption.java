package dev.strata.cli;

/** {@code --json}, shared by {@code strata-setup probe} and {@code strata-launch}. */
public final class JsonOption {
  private JsonOption() {}

  /** The option, a row of each command's table. */
  public static final CliOption<Boolean> OPTION =
      CliOption.flag("--json", "Print one JSON document on stdout instead of text.");
}
