package dev.strata.engine.cli;

import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.ValueKind;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

/**
 * Command-line values of engine flags, checked by the engine flag table ({@link EngineFlags}): the
 * same rule and the same words as a config's {@code args}, so {@code --ctx lots} on {@code
 * strata-setup} and {@code - lots} after {@code - --ctx} in a config are refused alike. The
 * completion candidates are the table's choices.
 */
public final class TableValues {
  private TableValues() {}

  /**
   * What is wrong with {@code value} for the table's row {@code flag}, phrased to follow "--flag:
   * "; null when the table allows it.
   */
  public static String problem(String flag, String value) {
    return EngineFlags.lookup(flag).kind().problem(value);
  }

  /** The words the table's row for {@code flag} allows, in its order. */
  public static List<String> choices(String flag) {
    return ((ValueKind.Choice) EngineFlags.lookup(flag).kind()).values();
  }

  /** A converter for a word of the table's row for {@code flag}, then {@code parse}d. */
  abstract static class Word<T> implements ITypeConverter<T> {
    private final String flag;
    private final Function<String, T> parse;

    Word(String flag, Function<String, T> parse) {
      this.flag = flag;
      this.parse = parse;
    }

    @Override
    public T convert(String value) {
      refuse(problem(flag, value));
      return parse.apply(value);
    }

    /**
     * Throws picocli's conversion error (it adds "Invalid value for option '--flag': "). Here, not
     * in {@link TableValues}: the fast path of {@code strata-setup --print} uses TableValues, and a
     * {@code throw} of a picocli class in it would load picocli's jar to verify it.
     */
    static void refuse(String problem) {
      if (problem != null) {
        throw new CommandLine.TypeConversionException(problem);
      }
    }
  }

  /** The words of the table's row for a flag, for shell completion. */
  abstract static class Words extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    Words(String flag) {
      super(choices(flag));
    }
  }

  /** {@code --experts MODE}. */
  public static final class Experts extends Word<ExpertsMode> {
    public Experts() {
      super(EngineFlags.EXPERTS, ExpertsMode::fromId);
    }
  }

  /** The table's experts modes. */
  public static final class ExpertsNames extends Words {
    private static final long serialVersionUID = 1L;

    public ExpertsNames() {
      super(EngineFlags.EXPERTS);
    }
  }

  /** {@code --kv FORMAT}. */
  public static final class Kv extends Word<KvFormat> {
    public Kv() {
      super(EngineFlags.KV, KvFormat::fromName);
    }
  }

  /** The table's KV formats. */
  public static final class KvNames extends Words {
    private static final long serialVersionUID = 1L;

    public KvNames() {
      super(EngineFlags.KV);
    }
  }
}
