package dev.strata.setup.prompt;

import dev.strata.engine.text.AsciiDigits;
import dev.strata.engine.text.Clip;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One question of the wizard, as plain data: what to show, its default, and how an answer is read
 * and checked. A {@link Prompter} does the asking; the questions know nothing of terminals.
 *
 * @param <T> the answer's type
 */
public sealed interface Question<T>
    permits Question.Choice, Question.Number, Question.PathAnswer, Question.YesNo {

  /** The flag this question stands for, e.g. "--ctx" (named when a script leaves it out). */
  String flag();

  /** The prompt, without the default. */
  String prompt();

  /** Lines shown before the prompt (explanations, trade-offs). */
  List<String> notes();

  /** The answer Enter gives, or null when an answer is needed. */
  T defaultValue();

  /** How an answer is shown (as the default, in the summary). */
  String show(T value);

  /** Reads one non-empty input line. */
  Parsed<T> parse(String input);

  /** The lines shown before the prompt: the notes and, for a choice, the options. */
  default List<String> body() {
    return notes();
  }

  /** A parsed answer or the reason it is wrong. */
  sealed interface Parsed<T> {
    record Ok<T>(T value) implements Parsed<T> {}

    record Bad<T>(String reason) implements Parsed<T> {}
  }

  /**
   * One option of a choice.
   *
   * @param name what the user may type (besides its number)
   * @param detail what it means, shown beside it
   * @param value the answer it gives
   */
  record Option<T>(String name, String detail, T value) {
    public Option {
      Objects.requireNonNull(name);
      Objects.requireNonNull(detail);
    }
  }

  /**
   * Pick one of a few options, by number or by name; with {@code other}, also any answer that
   * function accepts (a context size not in the list), tried after the options.
   *
   * @param other reads an answer that is not an option, or null when only the options are valid
   */
  record Choice<T>(
      String flag,
      String prompt,
      List<String> notes,
      List<Option<T>> options,
      int defaultIndex,
      java.util.function.Function<String, Parsed<T>> other)
      implements Question<T> {
    public Choice {
      notes = List.copyOf(notes);
      options = List.copyOf(options);
      if (options.isEmpty() || defaultIndex < 0 || defaultIndex >= options.size()) {
        throw new IllegalArgumentException("a choice needs options and a default among them");
      }
    }

    public Choice(
        String flag, String prompt, List<String> notes, List<Option<T>> options, int defaultIndex) {
      this(flag, prompt, notes, options, defaultIndex, null);
    }

    @Override
    public T defaultValue() {
      return options.get(defaultIndex).value();
    }

    @Override
    public String show(T value) {
      for (Option<T> o : options) {
        if (Objects.equals(o.value(), value)) {
          return o.name();
        }
      }
      return String.valueOf(value);
    }

    @Override
    public List<String> body() {
      List<String> out = new ArrayList<>(notes);
      int width = 0;
      for (Option<T> o : options) {
        width = Math.max(width, o.name().length());
      }
      for (int i = 0; i < options.size(); i++) {
        Option<T> o = options.get(i);
        String line =
            String.format(Locale.ROOT, "  %d) %-" + width + "s  %s", i + 1, o.name(), o.detail());
        out.add((i == defaultIndex ? line + "  (default)" : line).stripTrailing());
      }
      return out;
    }

    @Override
    public Parsed<T> parse(String input) {
      String s = input.strip();
      if (AsciiDigits.all(s) && s.length() <= 3) {
        int n = Integer.parseInt(s);
        if (n >= 1 && n <= options.size()) {
          return new Parsed.Ok<>(options.get(n - 1).value());
        }
      }
      for (Option<T> o : options) {
        if (o.name().equalsIgnoreCase(s)) {
          return new Parsed.Ok<>(o.value());
        }
      }
      if (other != null) {
        return other.apply(s);
      }
      List<String> names = new ArrayList<>();
      for (Option<T> o : options) {
        names.add(o.name());
      }
      return new Parsed.Bad<>(
          "'"
              + s
              + "' is not one of the options: type 1-"
              + options.size()
              + " or one of "
              + String.join(", ", names));
    }
  }

  /**
   * A whole number in a range. Accepts {@code 32768}, {@code 32,768}, {@code 32_768} and {@code
   * 32k} (× 1024).
   */
  record Number(
      String flag, String prompt, List<String> notes, long min, long max, Long defaultValue)
      implements Question<Long> {
    public Number {
      notes = List.copyOf(notes);
      if (min > max || (defaultValue != null && (defaultValue < min || defaultValue > max))) {
        throw new IllegalArgumentException("bad range or default");
      }
    }

    @Override
    public String show(Long value) {
      return String.valueOf(value);
    }

    @Override
    public Parsed<Long> parse(String input) {
      long v = dev.strata.cli.ContextSize.parse(input);
      if (v < 0 && dev.strata.cli.ContextSize.isNumber(input)) {
        // negative, or more digits than any size: out of range, not malformed
        return new Parsed.Bad<>(
            Clip.clip(input.strip()) + " is out of range: between " + min + " and " + max);
      }
      if (v < 0) {
        return new Parsed.Bad<>(
            "'"
                + input.strip()
                + "' is not a whole number"
                + (AsciiDigits.hasForeignDigit(input) ? " (ASCII digits 0-9 only)" : ""));
      }
      if (v < min || v > max) {
        return new Parsed.Bad<>(v + " is out of range: between " + min + " and " + max);
      }
      return new Parsed.Ok<>(v);
    }
  }

  /** Checks a path answer: null when good, else the reason (e.g. the GGUF reader's error). */
  @FunctionalInterface
  interface PathCheck {
    String problem(Path path);
  }

  /**
   * A file or folder path; {@code ~} is the home folder; a relative path is taken from the working
   * folder. The check runs on every answer, the default included.
   */
  record PathAnswer(
      String flag,
      String prompt,
      List<String> notes,
      Path defaultValue,
      Path home,
      Path workingDir,
      PathCheck check)
      implements Question<Path> {
    public PathAnswer {
      notes = List.copyOf(notes);
      Objects.requireNonNull(check);
      Objects.requireNonNull(workingDir);
    }

    @Override
    public String show(Path value) {
      return value.toString();
    }

    @Override
    public Parsed<Path> parse(String input) {
      String s = input.strip();
      if ((s.startsWith("'") && s.endsWith("'") || s.startsWith("\"") && s.endsWith("\""))
          && s.length() >= 2) {
        s = s.substring(1, s.length() - 1); // pasted with quotes from a shell
      }
      Path p;
      try {
        if (home != null && (s.equals("~") || s.startsWith("~/"))) {
          p = s.equals("~") ? home : home.resolve(s.substring(2));
        } else {
          p = workingDir.resolve(s);
        }
      } catch (java.nio.file.InvalidPathException e) {
        return new Parsed.Bad<>("'" + s + "' is not a valid path: " + e.getReason());
      }
      p = p.normalize();
      String problem = check.problem(p);
      return problem == null ? new Parsed.Ok<>(p) : new Parsed.Bad<>(problem);
    }
  }

  /** Yes or no. */
  record YesNo(String flag, String prompt, List<String> notes, Boolean defaultValue)
      implements Question<Boolean> {
    public YesNo {
      notes = List.copyOf(notes);
    }

    @Override
    public String show(Boolean value) {
      return value ? "yes" : "no";
    }

    @Override
    public Parsed<Boolean> parse(String input) {
      return switch (input.strip().toLowerCase(Locale.ROOT)) {
        case "y", "yes" -> new Parsed.Ok<>(true);
        case "n", "no" -> new Parsed.Ok<>(false);
        default -> new Parsed.Bad<>("answer yes or no (y/n)");
      };
    }
  }
}
