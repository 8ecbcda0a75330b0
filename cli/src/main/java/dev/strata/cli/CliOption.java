package dev.strata.cli;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One option of a command, declared once: the row its command's table holds ({@code SetupOptions},
 * {@code LaunchOptions}, the subcommands' {@code OPTIONS}). Both parsers read the same row: the
 * start-up fast path ({@link SimpleArgs#scan}, no picocli class) and picocli, whose model {@link
 * CliSpec} builds from the table ({@code --help}, the man pages, completion and every usage error
 * come from there). No picocli class is used here.
 *
 * @param name the option's main name ({@code --config})
 * @param aliases its other names ({@code -c}), none for most
 * @param label the value's placeholder in help ({@code FILE}); null for a switch
 * @param help the description picocli shows (picocli's format: {@code %%} for a percent sign,
 *     {@code ${bundle:…}} and {@code ${DEFAULT-VALUE}} are expanded)
 * @param reader what a typed value becomes; null for a switch (its value is {@link Boolean#TRUE})
 * @param type the value's class as picocli's model shows it ({@code Path} for a path option, whose
 *     shell completion then offers files); {@code Object} when nothing follows from it
 * @param pathTakes for a path option, what it takes, for {@link PathArgs}' "the path is empty"
 *     ({@code FILE (an engine config, engine.yaml)}); null for other options
 * @param candidates the words shell completion offers; empty for none
 * @param group the name of the exclusive group the option belongs to ({@code --out} or {@code
 *     --print}: at most one of a group), or null
 * @param fast false for an option the fast path leaves to picocli (an argument list naming it is
 *     never simple)
 * @param defaultValue the text read when the option is absent, or null: absent reads as null
 * @param <T> the type of the option's value
 */
public record CliOption<T>(
    String name,
    List<String> aliases,
    String label,
    String help,
    Reader<T> reader,
    Class<?> type,
    String pathTakes,
    List<String> candidates,
    String group,
    boolean fast,
    String defaultValue) {

  public CliOption {
    aliases = List.copyOf(aliases);
    candidates = List.copyOf(candidates);
    if (!name.startsWith("-") || (reader == null) != (label == null)) {
      throw new IllegalArgumentException("an option is -name, a switch has no label: " + name);
    }
  }

  /** What a typed value becomes, or why it is refused. */
  @FunctionalInterface
  public interface Reader<T> {
    /**
     * @param text the value as typed
     * @throws Refused with the problem, phrased to follow "Invalid value for option '--x': "
     */
    T read(String text) throws Refused;
  }

  /**
   * A refused value. Checked, and picocli-free: the fast path takes it as "not simple" (picocli
   * then parses, and says the problem), picocli's converter ({@link CliSpec}) throws it on as a
   * conversion error.
   */
  public static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean outOfRange;

    /**
     * @param problem what is wrong with the value
     * @param outOfRange true for a number out of its range: told as one line, {@code --flag:
     *     problem}, as the flag table's range refusals read ({@link Cli})
     */
    public Refused(String problem, boolean outOfRange) {
      super(problem, null, false, false);
      this.outOfRange = outOfRange;
    }

    public boolean outOfRange() {
      return outOfRange;
    }
  }

  /** A switch: present or not. */
  public static CliOption<Boolean> flag(String name, String help) {
    return new CliOption<>(
        name, List.of(), null, help, null, boolean.class, null, List.of(), null, true, null);
  }

  /** An option whose value {@code reader} reads. */
  public static <T> CliOption<T> of(String name, String label, String help, Reader<T> reader) {
    return new CliOption<>(
        name, List.of(), label, help, reader, Object.class, null, List.of(), null, true, null);
  }

  /** An option whose value is kept as typed (its command judges it). */
  public static CliOption<String> text(String name, String label, String help) {
    return of(name, label, help, s -> s);
  }

  /**
   * A path option ({@code Path.of}, as picocli's own converter), its value expanded by {@link
   * PathArgs} before either parser sees it.
   *
   * @param takes what it takes, for the empty-path refusal
   */
  public static CliOption<Path> path(String name, String label, String help, String takes) {
    CliOption<Path> o = of(name, label, help, CliOption::toPath);
    return new CliOption<>(
            name, List.of(), label, help, o.reader, Path.class, null, List.of(), null, true, null)
        .takes(takes);
  }

  /** A path option whose value is kept as text (a file or a profile name: {@code --host-file}). */
  public static CliOption<String> pathText(String name, String label, String help, String takes) {
    return text(name, label, help).takes(takes);
  }

  private static Path toPath(String s) throws Refused {
    try {
      return Path.of(s);
    } catch (InvalidPathException e) {
      throw new Refused("'" + s + "' is not a path: " + e.getReason(), false);
    }
  }

  /** True for a switch. */
  public boolean isSwitch() {
    return reader == null;
  }

  /** Every name, the main one first. */
  public List<String> names() {
    List<String> all = new ArrayList<>(aliases.size() + 1);
    all.add(name);
    all.addAll(aliases);
    return all;
  }

  /** This option with more names. */
  public CliOption<T> alias(String... more) {
    List<String> all = new ArrayList<>(aliases);
    all.addAll(List.of(more));
    return new CliOption<>(
        name, all, label, help, reader, type, pathTakes, candidates, group, fast, defaultValue);
  }

  /** This option as a path option taking {@code what}. */
  public CliOption<T> takes(String what) {
    return with(what, candidates, group, fast, defaultValue);
  }

  /** This option with completion candidates. */
  public CliOption<T> completes(List<String> words) {
    return with(pathTakes, words, group, fast, defaultValue);
  }

  /** This option in the exclusive group {@code name}. */
  public CliOption<T> inGroup(String groupName) {
    return with(pathTakes, candidates, groupName, fast, defaultValue);
  }

  /** This option, left to picocli by the fast path. */
  public CliOption<T> picocliOnly() {
    return with(pathTakes, candidates, group, false, defaultValue);
  }

  /** This option, read as {@code text} when absent. */
  public CliOption<T> defaultsTo(String text) {
    return with(pathTakes, candidates, group, fast, text);
  }

  /** A copy with these parser attributes (the withers above: each changes one). */
  private CliOption<T> with(
      String takes, List<String> words, String groupName, boolean fastPath, String absent) {
    return new CliOption<>(
        name, aliases, label, help, reader, type, takes, words, groupName, fastPath, absent);
  }
}
