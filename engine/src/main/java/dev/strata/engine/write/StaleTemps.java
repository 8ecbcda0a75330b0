package dev.strata.engine.write;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * The temp files an interrupted config write left behind, removed by the next write of the same
 * config (docs/SETUP.md "Where it writes").
 */
final class StaleTemps {
  private StaleTemps() {}

  /**
   * Removes what an interrupted writer left (a SIGKILL between the temp file and its rename): the
   * temp files {@link ConfigWriter#atomicWrite} names for {@code files} — a config, its {@code
   * .bak} and its state file, all in one folder — ({@code .NAME.<digits>.tmp}), and only those;
   * only regular files (never through a link: a link of that name is left) owned by {@code me}.
   * Called under the config's lock, when no other writer of it can be between its temp file and its
   * rename. Quiet: what cannot be removed stays, and the write goes on.
   *
   * @return how many were removed
   */
  static int remove(List<Path> files, int me) {
    Path dir = files.getFirst().toAbsolutePath().getParent();
    List<String> prefixes = new ArrayList<>();
    for (Path p : files) {
      prefixes.add("." + p.getFileName() + ".");
    }
    int removed = 0;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, ".*.tmp")) {
      for (Path p : ds) {
        if (isOurTemp(p.getFileName().toString(), prefixes) && ownRegularFile(p, me)) {
          try {
            Files.delete(p); // unlink: removes the name, never what a link points to
            removed++;
          } catch (IOException e) {
            // left for the next run
          }
        }
      }
    } catch (IOException | DirectoryIteratorException e) {
      // an unreadable folder: the write itself says what is wrong
    }
    return removed;
  }

  /** {@code .NAME.<digits>.tmp} for one of {@code prefixes} ({@code .NAME.}). */
  static boolean isOurTemp(String name, List<String> prefixes) {
    if (!name.endsWith(".tmp")) {
      return false;
    }
    for (String prefix : prefixes) {
      if (name.startsWith(prefix)) {
        String middle = name.substring(prefix.length(), name.length() - ".tmp".length());
        if (!middle.isEmpty() && middle.chars().allMatch(c -> c >= '0' && c <= '9')) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean ownRegularFile(Path p, int me) {
    try {
      BasicFileAttributes a =
          Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return a.isRegularFile()
          && (me < 0
              || ((Number) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).intValue()
                  == me);
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return false;
    }
  }
}
