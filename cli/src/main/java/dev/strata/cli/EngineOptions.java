package dev.strata.cli;

import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.FlagSpec;
import dev.strata.engine.flags.ValueKind;
import dev.strata.engine.gen.Answers;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import java.util.function.Function;

/**
 * Command-line options that set an engine flag ({@code strata-setup --kv}, {@code --experts},
 * {@code --ctx}; {@code strata-launch demo --kv}, {@code --ctx}), and the {@link Answers} they give
 * ({@link #answers}): a row of a command's table made from the engine flag table's row ({@link
 * EngineFlags}), which gives its name, its placeholder, its check (the same rule and words as a
 * config's {@code args}, so {@code --experts both} on the command line and in a config are refused
 * alike) and its completion words. Adding an engine flag a command shows is one such row in the
 * command's table, plus its use.
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

  /** {@code --experts MODE}, strata-setup's: where the MoE experts live. */
  public static final CliOption<ExpertsMode> EXPERTS =
      of(
          EngineFlags.EXPERTS,
          "stream (experts on the SSD, an arena keeps the hot ones) or resident (all in memory)."
              + " Default: resident when it fits with margin.",
          ExpertsMode::fromId);

  /**
   * The key a command's {@code --ctx} value is read by: each command declares its own (its help and
   * default differ, {@link #context}), and {@link CliValues} holds a value by the option's name.
   */
  private static final CliOption<Long> CTX_VALUE = context("");

  /**
   * The answers a command line gives through these options — {@code --ctx}, {@code --experts},
   * {@code --kv}, each null when absent or not among the command's options (the plan's default) —
   * for the generator: the one reading of them for strata-setup and {@code strata-launch demo},
   * whichever parser read the line.
   */
  public static Answers answers(CliValues v) {
    return new Answers(v.get(CTX_VALUE), v.get(EXPERTS), v.get(KV));
  }

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
