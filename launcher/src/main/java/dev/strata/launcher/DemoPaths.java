package dev.strata.launcher;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.Os;
import dev.strata.engine.StrataException;
import dev.strata.engine.write.ConfigPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Where {@code ./strata demo} puts its files and finds strata-ref. Pure: env and OS passed in. */
public final class DemoPaths {
  private DemoPaths() {}

  /**
   * The demo folder: {@code ~/Library/Caches/Strata/demo} on macOS; elsewhere {@code
   * $XDG_CACHE_HOME/strata/demo} when that is absolute, else {@code ~/.cache/strata/demo}.
   *
   * @throws StrataException (exit 2) when HOME is not set and no other rule applies
   */
  public static Path cacheDir(Map<String, String> env, String osName) {
    return ConfigPaths.cacheFolder(env, osName)
        .map(p -> p.resolve("demo"))
        .orElseThrow(
            () ->
                new StrataException(
                    ExitCodes.USAGE, "HOME is not set: pass --dir DIR for the demo's files"));
  }

  /** strata-ref's file name on this OS. */
  public static String refLibraryName(String osName) {
    boolean mac = Os.isMac(osName);
    return mac ? "libstrata_ref.dylib" : "libstrata_ref.so";
  }

  /**
   * Where strata-ref may be, in order: the build's {@code <strata.root>/engine/target/native/},
   * then the distribution's {@code <strata.home>/lib/}.
   */
  public static List<Path> refLibraryCandidates(String strataRoot, String strataHome, String os) {
    List<Path> c = new ArrayList<>();
    String name = refLibraryName(os);
    if (strataRoot != null && !strataRoot.isBlank()) {
      c.add(Path.of(strataRoot, "engine", "target", "native", name));
    }
    if (strataHome != null && !strataHome.isBlank()) {
      c.add(Path.of(strataHome, "lib", name));
    }
    return c;
  }

  /** The first candidate that exists. */
  public static Path findRefLibrary(String strataRoot, String strataHome, String os) {
    List<Path> c = refLibraryCandidates(strataRoot, strataHome, os);
    for (Path p : c) {
      if (Files.isRegularFile(p)) {
        return p.toAbsolutePath().normalize();
      }
    }
    throw new StrataException(
        ExitCodes.PREFLIGHT,
        "strata-ref not found"
            + (c.isEmpty() ? " (strata.root and strata.home are not set)" : " at " + c)
            + ": build it with ./strata build");
  }
}
