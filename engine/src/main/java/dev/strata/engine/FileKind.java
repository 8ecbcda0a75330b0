package dev.strata.engine;

import dev.strata.engine.text.Clip;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a path that exists but is not a regular file is, in a user's words: a shard that is a FIFO
 * or a link to {@code /dev/zero} is not "missing" (issue 28). Only metadata is read ({@code
 * stat}/{@code lstat}): nothing is opened, so a FIFO never blocks.
 */
public final class FileKind {
  private FileKind() {}

  /**
   * What {@code p} is when it exists and, links followed, is not a regular file: {@code "a FIFO
   * (named pipe)"}, {@code "a symlink to /dev/zero, a character device"}, {@code "a folder"}, …;
   * null for a regular file or when nothing is there (a dangling link included).
   */
  public static String notRegular(Path p) {
    if (!Files.exists(p) || Files.isRegularFile(p)) {
      return null;
    }
    String what = kind(p);
    if (Files.isSymbolicLink(p)) {
      String target;
      try {
        target = p.toRealPath().toString();
      } catch (IOException | SecurityException e) {
        target = "something";
      }
      return "a symlink to " + Clip.clip(target) + ", " + what;
    }
    return what;
  }

  /**
   * The sentence after a path: {@code "is a FIFO (named pipe), not a regular file"}; null as for
   * {@link #notRegular}.
   */
  public static String isNotRegular(Path p) {
    String what = notRegular(p);
    return what == null ? null : "is " + what + ", not a regular file";
  }

  /** The kind of what {@code p} resolves to (links followed), from its {@code st_mode}. */
  private static String kind(Path p) {
    if (Files.isDirectory(p)) {
      return "a folder";
    }
    int mode;
    try {
      mode = (Integer) Files.getAttribute(p, "unix:mode");
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return "not a plain file";
    }
    return switch (mode & 0170000) {
      case 0010000 -> "a FIFO (named pipe)";
      case 0140000 -> "a socket";
      case 0020000 -> "a character device";
      case 0060000 -> "a block device";
      default -> "not a plain file";
    };
  }
}
