package dev.strata.engine.flags;

import dev.strata.engine.text.AsciiDigits;
import java.util.List;

/** What a flag's value may be. Each kind checks a value and says in words what it allows. */
public sealed interface ValueKind {

  /**
   * Checks a value.
   *
   * @return null when the value is allowed, else what is wrong, phrased to follow "--flag: "
   */
  String problem(String value);

  /** What the kind allows, e.g. "a whole number in 1..1048576". */
  String describe();

  /** A whole number in {@code [min, max]}, written in plain decimal digits. */
  record IntRange(long min, long max) implements ValueKind {
    public IntRange {
      if (min > max || min < 0) {
        throw new IllegalArgumentException("bad range " + min + ".." + max);
      }
    }

    @Override
    public String problem(String value) {
      // plain ASCII decimal only, as the engines parse (engine/native/src/flags.c): 0x10 or 1e3
      // would mean something else there, and other scripts' digits are refused there
      if (value.isEmpty() || value.length() > 18 || !AsciiDigits.all(value)) {
        return "'"
            + value
            + "' is not "
            + describe()
            + (AsciiDigits.hasForeignDigit(value) ? " (ASCII digits 0-9 only)" : "");
      }
      long v = Long.parseLong(value);
      if (v < min || v > max) {
        return value + " is out of range (" + describe() + ")";
      }
      return null;
    }

    @Override
    public String describe() {
      return "a whole number in " + min + ".." + max;
    }
  }

  /** One of a closed set of words. */
  record Choice(List<String> values) implements ValueKind {
    public Choice {
      values = List.copyOf(values);
      if (values.isEmpty()) {
        throw new IllegalArgumentException("a choice needs values");
      }
    }

    @Override
    public String problem(String value) {
      if (values.contains(value)) {
        return null;
      }
      return "'" + value + "' is not " + describe() + Suggest.didYouMean(value, values);
    }

    @Override
    public String describe() {
      return "one of " + String.join(", ", values);
    }
  }

  /** A file path: any text the OS can take, not checked for existence here (preflight does). */
  record PathValue() implements ValueKind {
    /** PATH_MAX on Linux; macOS's is 1024, so any real path fits. */
    public static final int MAX_BYTES = 4096;

    @Override
    public String problem(String value) {
      if (value.isEmpty()) {
        return "the path is empty";
      }
      String bad = Text.problem(value, MAX_BYTES);
      return bad == null ? null : "the path " + bad;
    }

    @Override
    public String describe() {
      return "a path";
    }
  }

  /** A switch: present or absent, no value. */
  record Switch() implements ValueKind {
    @Override
    public String problem(String value) {
      return value.isEmpty() ? null : "takes no value";
    }

    @Override
    public String describe() {
      return "no value (a switch)";
    }
  }
}
