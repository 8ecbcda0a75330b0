package dev.strata.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The real files tests read and the repository never holds a copy of (llama.cpp's vocab GGUFs): the
 * {@code data} folder of {@code ../shared} beside the checkout, or the folder {@code
 * STRATA_SHARED_DATA} names (set by {@code .ci/run} when the clone is not beside it). A test that
 * needs it skips with {@link #WHY_NOT} when neither is there.
 */
public final class SharedData {
  /** The variable that names the shared data folder wherever the checkout is. */
  public static final String ENV = "STRATA_SHARED_DATA";

  public static final String WHY_NOT =
      "no shared data: neither ../shared/data beside the checkout nor $" + ENV + " (real files)";

  private SharedData() {}

  /** The shared data folder, if there is one. */
  public static Optional<Path> dir() {
    String named = System.getenv(ENV);
    if (named != null && !named.isBlank() && Files.isDirectory(Path.of(named))) {
      return Optional.of(Path.of(named).toAbsolutePath().normalize());
    }
    Path beside = RepoRoot.path().resolve("../shared/data").normalize();
    return Files.isDirectory(beside) ? Optional.of(beside) : Optional.empty();
  }

  /** {@code sub} inside the shared data folder (e.g. "gguf"), if the folder is there. */
  public static Optional<Path> resolve(String sub) {
    return dir().map(d -> d.resolve(sub));
  }
}
