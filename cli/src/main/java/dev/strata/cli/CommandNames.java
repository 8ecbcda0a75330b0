package dev.strata.cli;

/**
 * The names of the two commands and their subcommands (docs/SETUP.md, docs/LAUNCH.md), in one
 * place: the picocli annotations, the start-up fast paths' lists of names that are not an option's
 * value ({@code SetupOptions}, {@code LaunchOptions}) and every message's {@code <command>:} prefix
 * take them from here.
 */
public final class CommandNames {
  private CommandNames() {}

  /** The config generator and its wizard. */
  public static final String SETUP = "strata-setup";

  /** The launcher. */
  public static final String LAUNCH = "strata-launch";

  /** {@code strata-setup probe}: what this machine is. */
  public static final String PROBE = "probe";

  /** {@code strata-setup demo-model}: writes the demo GGUF model. */
  public static final String DEMO_MODEL = "demo-model";

  /** {@code strata-launch demo}: the demo end to end. */
  public static final String DEMO = "demo";

  /** Both commands' shell completion script. */
  public static final String COMPLETION = "completion";

  /** picocli's {@code HelpCommand}, a subcommand of both. */
  public static final String HELP = "help";
}
