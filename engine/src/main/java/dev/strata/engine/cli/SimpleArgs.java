package dev.strata.engine.cli;

import java.util.Set;

/**
 * The rule the commands' start-up fast paths ({@code SetupArgs}, {@code LaunchArgs}) share for an
 * option's value: which words picocli would read as the value of {@code --name value}, exactly as
 * typed. Anything else is left to picocli, whose parse decides (and whose differential tests,
 * {@code SetupArgsTest} and {@code LaunchArgsTest}, pin each case). No picocli class is used here:
 * the fast paths must not load picocli's jar.
 */
public final class SimpleArgs {
  private SimpleArgs() {}

  /**
   * Whether picocli takes {@code value} literally as an option's value: not when it starts with
   * {@code -} (an option, or a value picocli may refuse as one), nor {@code @} (an argument file
   * picocli expands in place, picocli's {@code @FILE}), nor when it is the name of one of the
   * command's subcommands ("Expected parameter for option '--out' but found 'probe'").
   *
   * @param value the word after the option's name
   * @param subcommands the command's subcommands' names, {@code help} among them
   */
  public static boolean plainValue(String value, Set<String> subcommands) {
    return !value.startsWith("-") && !value.startsWith("@") && !subcommands.contains(value);
  }
}
