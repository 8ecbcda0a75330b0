package dev.strata.cli;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The commands' start-up fast path: an argument list read from the command's option table ({@link
 * CliOption}) without picocli, when it is simple ({@link #scan}). Anything else is left to picocli,
 * whose model is built from the same table ({@link CliSpec}) and whose parse decides; the
 * differential tests ({@code SetupOptionsTest}, {@code LaunchOptionsTest}) pin each case. No
 * picocli class is used here: the fast paths must not load picocli's jar (docs/PERFORMANCE.md §2).
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
   * The values of {@code args} when the list is simple: every word a switch of {@code table}, or a
   * valued option followed by a {@link #plainValue} its reader accepts; no option twice (by any of
   * its names), at most one option of an exclusive group, none left to picocli ({@link
   * CliOption#fast}). Otherwise null: picocli parses the list and says what is wrong.
   *
   * @param args the command line, no program name
   * @param table the command's options
   * @param subcommands the command's subcommands' names ({@link #plainValue})
   */
  public static CliValues scan(String[] args, List<CliOption<?>> table, Set<String> subcommands) {
    Map<String, CliOption<?>> byName = new HashMap<>();
    for (CliOption<?> o : table) {
      for (String n : o.names()) {
        byName.put(n, o);
      }
    }
    CliValues values = new CliValues();
    Set<String> seen = new HashSet<>();
    Set<String> groups = new HashSet<>();
    for (int i = 0; i < args.length; i++) {
      CliOption<?> o = byName.get(args[i]);
      if (o == null
          || !o.fast()
          || !seen.add(o.name())
          || (o.group() != null && !groups.add(o.group()))) {
        return null; // unknown, picocli's, repeated, or a second of an exclusive group
      }
      if (o.isSwitch()) {
        values.put(o, Boolean.TRUE);
        continue;
      }
      if (i + 1 >= args.length || !plainValue(args[i + 1], subcommands)) {
        return null; // a value missing, or one picocli reads otherwise
      }
      try {
        values.put(o, o.reader().read(args[++i]));
      } catch (CliOption.Refused e) {
        return null; // a bad value: picocli says what is wrong
      }
    }
    for (CliOption<?> o : table) {
      if (o.defaultValue() != null && !seen.contains(o.name())) {
        try {
          values.put(o, o.reader().read(o.defaultValue()));
        } catch (CliOption.Refused e) {
          throw new IllegalStateException(o.name() + "'s default is refused", e);
        }
      }
    }
    return values;
  }
}
