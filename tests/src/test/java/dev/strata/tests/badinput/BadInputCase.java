package dev.strata.tests.badinput;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One row of {@code badinput/cases.tsv}: what to prepare, which command to run with which
 * arguments, and the exit code and stderr line it must produce.
 *
 * @param name the case's name; {@code badinput/<name>/}, when it exists, holds its input files
 * @param kind the class of bad input it belongs to (counted in docs/RELIABILITY.md)
 * @param command {@code setup} or {@code launch}
 * @param prepare operations that build generated inputs ({@link Prepare}), {@code ;}-separated
 * @param args the command's arguments, space-separated, {@code {tmp}} standing for the case's
 *     temporary folder and {@code {lib}} for strata-ref as built
 * @param exit the expected exit code
 * @param stderr the expected first stderr line: exact, or a regex after {@code re:}
 * @param hints how many documented hint lines may follow it (picocli's "Did you mean" / "Try
 *     --help" lines for flag errors)
 * @param stdout whether the case may print on stdout (written {@code N+stdout} in the hints
 *     column): a --dry-run prints its report, and a launch prints its plan before loading
 */
record BadInputCase(
    String name,
    String kind,
    String command,
    String prepare,
    String args,
    int exit,
    String stderr,
    int hints,
    boolean stdout) {

  static final String TABLE = "/badinput/cases.tsv";
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

  /** The arguments with {@code {tmp}} replaced. */
  String[] argv(Path tmp) {
    if (args.isBlank()) {
      return new String[0];
    }
    return Arrays.stream(args.trim().split(" +"))
        .map(a -> Prepare.expand(a, tmp))
        .toArray(String[]::new);
  }

  /** Whether {@code line} is the expected first stderr line (after {@code {tmp}} replacement). */
  boolean matches(String line, Path tmp) {
    if (stderr.startsWith("re:")) {
      String re =
          stderr
              .substring(3)
              .replace("{tmp}", Pattern.quote(tmp.toString()))
              .replace("{lib}", Pattern.quote(Prepare.refLibrary().toString()));
      return Pattern.compile(re).matcher(line).matches();
    }
    return line.equals(Prepare.expand(stderr, tmp));
  }

  /** Reads the table: tab-separated, one case a line; {@code #} lines and blank lines skipped. */
  static List<BadInputCase> load(Path table) {
    List<String> lines;
    try {
      lines = Files.readAllLines(table, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<BadInputCase> cases = new ArrayList<>();
    int n = 0;
    for (String line : lines) {
      n++;
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split("\t", -1);
      if (f.length != 8) {
        throw new IllegalStateException(
            table + ":" + n + ": expected 8 tab-separated fields, got " + f.length);
      }
      if (!NAME.matcher(f[0]).matches()) {
        throw new IllegalStateException(table + ":" + n + ": bad case name " + f[0]);
      }
      cases.add(
          new BadInputCase(
              f[0],
              f[1],
              f[2],
              f[3].trim(),
              f[4],
              Integer.parseInt(f[5]),
              f[6],
              Integer.parseInt(f[7].replace("+stdout", "")),
              f[7].endsWith("+stdout")));
    }
    return List.copyOf(cases);
  }
}
