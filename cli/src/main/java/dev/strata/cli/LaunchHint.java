package dev.strata.cli;

import dev.strata.engine.text.ShellWords;
import java.nio.file.Path;

/**
 * How the user runs strata-launch from where they are, for the line that tells them what to run
 * next (the demo's, and strata-setup's after it writes a config): {@code ./strata launch} in a
 * checkout (or the script's path from elsewhere), the distribution's {@code bin/strata-launch},
 * else {@code strata-launch} on the PATH.
 */
public final class LaunchHint {
  private LaunchHint() {}

  /**
   * The command.
   *
   * @param strataRoot the source tree ({@code -Dstrata.root}), or null
   * @param strataHome the distribution ({@code -Dstrata.home}), or null
   * @param cwd the working folder
   */
  public static String command(Path strataRoot, Path strataHome, Path cwd) {
    if (strataRoot != null && !strataRoot.toString().isBlank()) {
      Path script = strataRoot.resolve("strata").toAbsolutePath().normalize();
      return (script.getParent().equals(cwd.toAbsolutePath().normalize())
              ? "./strata"
              : ShellWords.quote(script.toString()))
          + " launch";
    }
    if (strataHome != null && !strataHome.toString().isBlank()) {
      return ShellWords.quote(
          strataHome.resolve("bin").resolve("strata-launch").toAbsolutePath().toString());
    }
    return "strata-launch";
  }

  /** {@code "launch it: <command> --config <config>"}: what setup says after writing a config. */
  public static String launchIt(Machine machine, Path config) {
    return "launch it: "
        + command(machine.strataRoot(), machine.strataHome(), machine.workingDir())
        + " --config "
        + ShellWords.quote(config.toAbsolutePath().toString());
  }
}
