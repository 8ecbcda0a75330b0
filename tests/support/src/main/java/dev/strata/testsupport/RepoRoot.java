package dev.strata.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.condition.OS;

/** The one way a test finds the repository root (for templates/, docs/, goldens, native builds). */
public final class RepoRoot {
  private RepoRoot() {}

  /**
   * {@code strata.root} (the parent pom passes it to every test), else the nearest folder up from
   * the working directory that holds {@code docs/ENGINE-CONTRACT.md} (an IDE run).
   *
   * @throws IllegalStateException when neither finds the root
   */
  public static Path path() {
    String prop = System.getProperty("strata.root");
    if (prop != null && !prop.isBlank() && !prop.contains("${")) {
      return Path.of(prop).toAbsolutePath();
    }
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isRegularFile(p.resolve("docs/ENGINE-CONTRACT.md"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("cannot find the repository root (set -Dstrata.root)");
    }
    return p;
  }

  /** {@code relative} under the root. */
  public static Path resolve(String relative) {
    return path().resolve(relative);
  }

  /**
   * strata-ref as the engine module built it ({@code engine/target/native}): the one place tests
   * find the reference engine library. It may not exist (the native build skipped): callers check.
   */
  public static Path refLibrary() {
    return resolve("engine/target/native")
        .resolve(OS.MAC.isCurrentOs() ? "libstrata_ref.dylib" : "libstrata_ref.so");
  }
}
