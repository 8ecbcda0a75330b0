package dev.strata.engine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Folder helpers shared by the engine loader and the launcher's isolated runner. */
public final class Folders {
  private Folders() {}

  /**
   * Deletes {@code dir} and everything below it, deepest first, ignoring what cannot be deleted:
   * for private temp folders (a copy of the engine library, a crash-report folder), where a
   * leftover is harmless and an error would hide the real outcome. Links are deleted, never
   * followed.
   */
  public static void deleteQuietly(Path dir) {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  // a temp folder left behind is harmless
                }
              });
    } catch (IOException e) {
      // same
    }
  }
}
