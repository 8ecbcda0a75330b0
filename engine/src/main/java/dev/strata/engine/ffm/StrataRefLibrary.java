package dev.strata.engine.ffm;

import dev.strata.engine.Os;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where strata-ref, the reference CPU engine built from engine/native, is found without being
 * named: the one rule for strata-setup (the library a cpu-reference config names) and {@code
 * strata-launch demo}. In order: the distribution's {@code <strata.home>/lib/native/} (dist/pom.xml
 * copies it there), then the build's {@code <strata.root>/engine/target/native/} (a checkout). The
 * Metal engine ships outside this repository and has no default place (docs/SETUP.md).
 */
public final class StrataRefLibrary {
  /** strata-ref's library name without the {@code lib} prefix and the suffix. */
  public static final String NAME = "strata_ref";

  private StrataRefLibrary() {}

  /** The shared-library suffix of the machine named by {@code osName} ({@code os.name}). */
  public static String suffix(String osName) {
    return Os.isMac(osName) ? ".dylib" : ".so";
  }

  /** The places looked at, in order (either root may be null: not known to this process). */
  public static List<Path> candidates(Path strataHome, Path strataRoot, String osName) {
    String file = "lib" + NAME + suffix(osName);
    List<Path> out = new ArrayList<>();
    if (strataHome != null) {
      out.add(strataHome.resolve("lib").resolve("native").resolve(file));
    }
    if (strataRoot != null) {
      out.add(strataRoot.resolve("engine").resolve("target").resolve("native").resolve(file));
    }
    return out;
  }

  /** The first candidate that is a regular file, absolute and normalized. */
  public static Optional<Path> discover(Path strataHome, Path strataRoot, String osName) {
    for (Path p : candidates(strataHome, strataRoot, osName)) {
      if (Files.isRegularFile(p)) {
        return Optional.of(p.toAbsolutePath().normalize());
      }
    }
    return Optional.empty();
  }
}
