package dev.strata.cli;

import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.FlagSpec;
import dev.strata.engine.flags.ValueKind;
import dev.strata.engine.kv.KvFormat;
import java.util.function.Function;

/**
 * Command-line options that set an engine flag ({@code strata-setup --kv}, {@code --experts},
 * {@code --ctx}; {@code strata-launch demo --kv}, {@code --ctx}): a row of a command's table made
 * from the engine flag table's row ({@link EngineFlags}), which gives its name, its placeholder,
 * its check (the same rule and words as a config's {@code args}, so {@code --experts both} on the
 * command line and in a config are refused alike) and its completion words. Adding an engine flag a
 * command shows is one such row in the command's table, plus its use.
 */
public final class EngineOptions {
  private EngineOptions() {}

  /**
   * {@code --kv FORMAT}, shared by {@code strata-setup} and {@code strata-launch demo}: the
   * KV-cache format to opt into.
   */
  public static final CliOption<KvFormat> KV =
      of(
          EngineFlags.KV,
          "KV cache format, opt-in: q4_0 stores ${bundle:strata.kv.q4_0.cell} instead of"
              + " ${bundle:strata.kv.int8.cell} B per cell per layer (upstream: +1.7%% perplexity on"
              + " 1K-token segments, more at longer context). Without it no --kv is written: the"
              + " engine's default path.",
          KvFormat::fromName);

  /**
   * The option for engine flag {@code flag}: its value checked by the table's row, then {@code
   * parse}d (a row's checked text always parses).
   *
   * @param flag an engine flag ({@link EngineFlags#lookup} has its row)
   * @param help what the command's help says of it
   * @param parse the value's type from its checked text
   */
  public static <T> CliOption<T> of(String flag, String help, Function<String, T> parse) {
    FlagSpec row = EngineFlags.lookup(flag);
    if (row == null || row.isSwitch()) {
      throw new IllegalArgumentException("not an engine flag with a value: " + flag);
    }
    ValueKind kind = row.kind();
    CliOption<T> o =
        CliOption.of(
            flag,
            row.metavar(),
            help,
            text -> {
              String problem = kind.problem(text);
              if (problem != null) {
                throw new CliOption.Refused(problem, false);
              }
              return parse.apply(text);
            });
    return kind instanceof ValueKind.Choice c ? o.completes(c.values()) : o;
  }

  /**
   * A context option ({@code --ctx N}): a size as people write it, by {@link ContextSize}'s rule
   * (32k = 32,768), in the table's {@code --ctx} range; a number out of range is told as one line.
   */
  public static CliOption<Long> context(String help) {
    return CliOption.of(
        EngineFlags.CTX,
        EngineFlags.lookup(EngineFlags.CTX).metavar(),
        help,
        text -> {
          String problem = ContextSize.problem(text);
          if (problem != null) {
            throw new CliOption.Refused(
                problem, ContextSize.parse(text) >= 0 || ContextSize.isNumber(text));
          }
          return ContextSize.parse(text);
        });
  }
}
