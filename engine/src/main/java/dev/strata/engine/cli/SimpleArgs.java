package dev.strata.engine.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the commands' start-up fast paths ({@code SetupArgs}, {@code LaunchArgs}) share: which
 * argument lists are simple ({@link #options}) and which words picocli would read as the value of
 * {@code --name value}, exactly as typed ({@link #plainValue}). Anything else is left to picocli,
 * whose parse decides (and whose differential tests, {@code SetupArgsTest} and {@code
 * LaunchArgsTest}, pin each case). No picocli class is used here: the fast paths must not load
 * picocli's jar.
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

  /**
   * One option of a simple argument list.
   *
   * @param name the option's name as typed
   * @param value its value, or null for a switch
   */
  public record Option(String name, String value) {}

  /**
   * The options of {@code args}, in order, when the list is simple: every word a name in {@code
   * switches}, or a name in {@code valued} followed by a {@link #plainValue}; no option twice
   * ({@code aliases} maps another name of an option to its main name, so {@code -c} and {@code
   * --config} count as one). Otherwise null: picocli parses the list.
   *
   * @param args the command line, no program name
   * @param valued the command's options that take a value, by every name
   * @param switches the command's switches
   * @param subcommands the command's subcommands' names ({@link #plainValue})
   * @param aliases other names of an option → its main name
   */
  public static List<Option> options(
      String[] args,
      Set<String> valued,
      Set<String> switches,
      Set<String> subcommands,
      Map<String, String> aliases) {
    List<Option> options = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (!seen.add(aliases.getOrDefault(name, name))) {
        return null;
      }
      if (switches.contains(name)) {
        options.add(new Option(name, null));
      } else if (valued.contains(name)
          && i + 1 < args.length
          && plainValue(args[i + 1], subcommands)) {
        options.add(new Option(name, args[++i]));
      } else {
        return null; // unknown, a value missing, or one picocli reads otherwise (plainValue)
      }
    }
    return options;
  }
}
