package dev.strata.engine.cli;

import picocli.CommandLine.Option;

/** {@code --json}, shared by {@code strata-setup probe} and {@code strata-launch}. */
public final class JsonOption {
  /** The option's name. */
  public static final String NAME = "--json";

  @Option(names = NAME, description = "Print one JSON document on stdout instead of text.")
  boolean json;

  /** True when the option was given. */
  public boolean json() {
    return json;
  }
}
