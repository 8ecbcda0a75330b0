package dev.strata.engine.write;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.Os;
import dev.strata.engine.StrataException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Where the engine config lives by default. The environment and the OS name are passed in, never
 * read here, so every platform's rule is testable on any platform.
 *
 * <ul>
 *   <li>{@code STRATA_CONFIG} set and not empty: that file, everywhere;
 *   <li>macOS: {@code ~/Library/Application Support/Strata/engine.yaml};
 *   <li>elsewhere: {@code $XDG_CONFIG_HOME/strata/engine.yaml} when XDG_CONFIG_HOME is an absolute
 *       path (the XDG spec says to ignore a relative one), else {@code
 *       ~/.config/strata/engine.yaml}.
 * </ul>
 */
public final class ConfigPaths {
  public static final String STRATA_CONFIG = "STRATA_CONFIG";
  public static final String FILE_NAME = "engine.yaml";

  private ConfigPaths() {}

  /**
   * @param env the process environment
   * @param osName the {@code os.name} system property
   * @throws StrataException (exit 2) when no rule applies because HOME is not set
   */
  public static Path defaultConfig(Map<String, String> env, String osName) {
    String explicit = env.get(STRATA_CONFIG);
    if (explicit != null && !explicit.isBlank()) {
      return Path.of(explicit).toAbsolutePath();
    }
    boolean mac = Os.isMac(osName);
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
          "cannot place the config: HOME is not set (set STRATA_CONFIG or pass --out FILE)");
    }
    return mac
        ? Path.of(home, "Library", "Application Support", "Strata", FILE_NAME)
        : Path.of(home, ".config", "strata", FILE_NAME);
  }

  /**
   * The user's cache folder for Strata: {@code ~/Library/Caches/Strata} on macOS; elsewhere {@code
   * $XDG_CACHE_HOME/strata} when that is an absolute path, else {@code ~/.cache/strata}. Empty when
   * HOME is needed and not set. Used by the demo (its files) and the Mac probe (its marker).
   *
   * @param env the process environment
   * @param osName the {@code os.name} system property
   */
  public static Optional<Path> cacheFolder(Map<String, String> env, String osName) {
    boolean mac = Os.isMac(osName);
    if (!mac) {
      String xdg = env.get("XDG_CACHE_HOME");
      if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
        return Optional.of(Path.of(xdg, "strata"));
      }
    }
    String home = env.get("HOME");
    if (home == null || home.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(
        mac ? Path.of(home, "Library", "Caches", "Strata") : Path.of(home, ".cache", "strata"));
  }
}
