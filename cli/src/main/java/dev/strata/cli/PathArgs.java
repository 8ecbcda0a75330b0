package dev.strata.cli;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The values of a command's path options, read the same way whichever parser takes them (the fast
 * paths {@code SetupOptions}/{@code LaunchOptions} or picocli), before either sees them (issue 28):
 *
 * <ul>
 *   <li>a leading {@code ~/} (or a lone {@code ~}) is the home folder, as the wizard and the
 *       answers file read it: the shell expands it in {@code --model ~/m} but not after the {@code
 *       =} of {@code --model=~/m}, nor inside quotes;
 *   <li>an empty value ({@code --host-file ""}, {@code --out=}) is refused, "the path is empty",
 *       where {@code Path.of("")} would have been read as the current folder.
 * </ul>
 */
public final class PathArgs {
  private PathArgs() {}

  /**
   * The path options among {@code options} (every name of each) → what each takes: the {@code
   * paths} of {@link #expand}, from a command's tables (its own and its subcommands').
   */
  public static Map<String, String> paths(List<CliOption<?>> options) {
    Map<String, String> paths = new HashMap<>();
    for (CliOption<?> o : options) {
      if (o.pathTakes() != null) {
        for (String n : o.names()) {
          paths.putIfAbsent(n, o.pathTakes());
        }
      }
    }
    return paths;
  }

  /**
   * {@code args} with every path option's value expanded.
   *
   * @param paths each path option (with its short names) → what it takes, for the message ("FILE
   *     (an engine config, engine.yaml)")
   * @param home the home folder ({@code HOME}), or null/blank: {@code ~} is then left as it is
   * @throws StrataException exit 2 for an empty path
   */
  public static String[] expand(String[] args, Map<String, String> paths, String home) {
    String[] out = args.clone();
    for (int i = 0; i < out.length; i++) {
      String a = out[i];
      if (a.equals("--")) {
        break;
      }
      if (paths.containsKey(a)) {
        if (i + 1 < out.length) {
          out[i + 1] = value(a, out[i + 1], paths.get(a), home);
          i++;
        }
        continue;
      }
      int eq = a.indexOf('=');
      if (eq > 0 && a.startsWith("-") && paths.containsKey(a.substring(0, eq))) {
        String name = a.substring(0, eq);
        out[i] = name + "=" + value(name, a.substring(eq + 1), paths.get(name), home);
      }
    }
    return out;
  }

  private static String value(String option, String v, String takes, String home) {
    if (v.isEmpty()) {
      throw new StrataException(
          ExitCodes.USAGE, option + ": the path is empty: pass " + option + " " + takes);
    }
    if (home == null || home.isBlank()) {
      return v;
    }
    if (v.equals("~")) {
      return home;
    }
    if (v.startsWith("~/")) {
      return (home.endsWith("/") ? home : home + "/") + v.substring(2);
    }
    return v;
  }
}
