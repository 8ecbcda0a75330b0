package dev.strata.launcher;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.ffm.StrataRefLibrary;
import dev.strata.engine.write.ConfigPaths;
import java.nio.file.Path;
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

  /**
   * strata-ref for the demo: where strata-setup finds it ({@link StrataRefLibrary}: the
   * distribution's {@code lib/native/}, then a checkout's build).
   *
   * @throws StrataException (exit 3) naming the places looked at
   */
  public static Path findRefLibrary(Path strataRoot, Path strataHome, String os) {
    return StrataRefLibrary.discover(strataHome, strataRoot, os)
        .orElseThrow(
            () -> {
              List<Path> c = StrataRefLibrary.candidates(strataHome, strataRoot, os);
              return new StrataException(
                  ExitCodes.PREFLIGHT,
                  "strata-ref not found"
                      + (c.isEmpty() ? " (strata.root and strata.home are not set)" : " at " + c)
                      + ": build it with ./strata build");
            });
  }

  /** Where the demo model lives, under a checkout's root or the distribution's. */
  public static final String DEMO_MODEL = "templates/demo-model/tiny-qwen3-q4_k_m.gguf";

  /**
   * The demo model: a checkout's {@code templates/demo-model/} first, then the distribution's.
   *
   * @throws StrataException (exit 3) naming the places looked at
   */
  public static Path findDemoModel(Path strataRoot, Path strataHome) {
    List<Path> looked = new java.util.ArrayList<>();
    for (Path base : new Path[] {strataRoot, strataHome}) {
      if (base != null) {
        Path p = base.resolve(DEMO_MODEL).toAbsolutePath().normalize();
        if (java.nio.file.Files.isRegularFile(p)) {
          return p;
        }
        looked.add(p);
      }
    }
    throw new StrataException(
        ExitCodes.PREFLIGHT,
        "the demo model is not there"
            + (looked.isEmpty() ? " (strata.root and strata.home are not set)" : ": " + looked)
            + ": it comes with the checkout and the distribution (templates/demo-model/)");
  }
}
