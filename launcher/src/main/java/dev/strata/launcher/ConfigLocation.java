package dev.strata.launcher;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Where {@code strata-launch} looks for the config when {@code --config} is not given — the same
 * rule as {@code strata-setup}'s writer ({@code dev.strata.setup.write.ConfigPaths}); the launcher
 * may not depend on the setup module (DESIGN §2), so the rule is repeated here and a test in
 * {@code tests/} checks the two agree on every platform's case.
 *
 * <ul>
 *   <li>{@code STRATA_CONFIG} set and not empty: that file, everywhere;
 *   <li>macOS: {@code ~/Library/Application Support/Strata/engine.yaml};
 *   <li>elsewhere: {@code $XDG_CONFIG_HOME/strata/engine.yaml} when XDG_CONFIG_HOME is an absolute
 *       path, else {@code ~/.config/strata/engine.yaml}.
 * </ul>
 */
public final class ConfigLocation {
  public static final String STRATA_CONFIG = "STRATA_CONFIG";
  public static final String FILE_NAME = "engine.yaml";

  private ConfigLocation() {}

  /**
   * @param env the process environment
   * @param osName the {@code os.name} system property
   * @throws StrataException (exit 2) when HOME is not set and nothing else names the file
   */
  public static Path defaultConfig(Map<String, String> env, String osName) {
    String explicit = env.get(STRATA_CONFIG);
    if (explicit != null && !explicit.isBlank()) {
      return Path.of(explicit).toAbsolutePath();
    }
    boolean mac = osName != null && osName.toLowerCase(Locale.ROOT).startsWith("mac");
    if (!mac) {
      String xdg = env.get("XDG_CONFIG_HOME");
      if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
        return Path.of(xdg, "strata", FILE_NAME);
      }
    }
    String home = env.get("HOME");
    if (home == null || home.isBlank()) {
      throw new StrataException(
          ExitCodes.USAGE,
          "no config given and HOME is not set: pass --config FILE or set STRATA_CONFIG");
    }
    return mac
        ? Path.of(home, "Library", "Application Support", "Strata", FILE_NAME)
        : Path.of(home, ".config", "strata", FILE_NAME);
  }
}
