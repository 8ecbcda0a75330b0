package dev.strata.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * picocli's model of a command built from its option table ({@link CliOption}): the command's class
 * keeps its {@code @Command} (name, description, footer, exit codes) and declares no option; every
 * option comes from the table, in the table's order, then {@code -h}/{@code -V}. What {@code
 * --help}, the man pages and shell completion show is therefore what the fast path ({@link
 * SimpleArgs#scan}) reads.
 */
public final class CliSpec {
  private CliSpec() {}

  /**
   * A number out of range, from a row's reader ({@link CliOption.Refused#outOfRange}): {@link Cli}
   * tells it as {@code <option>: <message>}, one line, as every other range refusal of a flag.
   */
  public static final class OutOfRange extends CommandLine.TypeConversionException {
    private static final long serialVersionUID = 1L;

    OutOfRange(String message) {
      super(message);
    }
  }

  /**
   * The model of {@code command} (an {@code @Command} class without options, {@link
   * java.util.concurrent.Callable}) with {@code table}'s options and the standard help options.
   */
  public static CommandSpec of(Object command, List<CliOption<?>> table) {
    CommandSpec spec = CommandSpec.forAnnotatedObject(command);
    Set<String> groups = new HashSet<>();
    for (CliOption<?> o : table) {
      if (o.group() == null) {
        spec.addOption(option(o));
      } else if (groups.add(o.group())) {
        // the whole group where its first member stands, so help keeps the table's order
        ArgGroupSpec.Builder g = ArgGroupSpec.builder().exclusive(true).multiplicity("0..1");
        for (CliOption<?> m : table) {
          if (o.group().equals(m.group())) {
            g.addArg(option(m));
          }
        }
        spec.addArgGroup(g.build());
      }
    }
    spec.mixinStandardHelpOptions(true);
    return spec;
  }

  /**
   * The values picocli parsed into {@code spec} (built by {@link #of}), as {@link SimpleArgs#scan}
   * gives them.
   */
  public static CliValues values(CommandSpec spec, List<CliOption<?>> table) {
    CliValues values = new CliValues();
    for (CliOption<?> o : table) {
      Object v = spec.findOption(o.name()).getValue();
      if (o.isSwitch() ? Boolean.TRUE.equals(v) : v != null) {
        values.put(o, v);
      }
    }
    return values;
  }

  private static OptionSpec option(CliOption<?> o) {
    // short names first, as picocli's annotations are written ("-c, --config" in help, man,
    // completion)
    String[] names =
        o.names().stream()
            .sorted(java.util.Comparator.comparing(n -> n.startsWith("--")))
            .toArray(String[]::new);
    OptionSpec.Builder b = OptionSpec.builder(names).description(o.help());
    if (o.isSwitch()) {
      return b.type(boolean.class).arity("0").build();
    }
    CliOption.Reader<?> reader = o.reader();
    b.type(o.type())
        .arity("1")
        .paramLabel(o.label())
        .converters(
            text -> {
              try {
                return reader.read(text);
              } catch (CliOption.Refused r) {
                throw r.outOfRange()
                    ? new OutOfRange(r.getMessage())
                    : new CommandLine.TypeConversionException(r.getMessage());
              }
            });
    if (!o.candidates().isEmpty()) {
      b.completionCandidates(new ArrayList<>(o.candidates()));
    }
    if (o.defaultValue() != null) {
      b.defaultValue(o.defaultValue());
    }
    return b.build();
  }
}
