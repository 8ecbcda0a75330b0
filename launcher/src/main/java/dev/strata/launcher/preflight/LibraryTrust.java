package dev.strata.launcher.preflight;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;

/**
 * Whether an engine library may be loaded into this process. Loading a library runs its code with
 * the user's rights, so anyone who can replace it owns the launch. Refused:
 *
 * <ul>
 *   <li>a missing path, or one that is not a regular file (a folder, a device, a fifo);
 *   <li>a world-writable file, or a file in a world-writable folder (anyone may swap it — even with
 *       the sticky bit, the folder's other users may plant the name first);
 *   <li>a symlink, at any hop of its chain, that lives in or points into a world-writable folder;
 *   <li>a file whose SHA-256 differs from {@code engine.sha256} when the config pins one.
 * </ul>
 *
 * The check returns the real path (every link resolved): the launcher loads exactly the file it
 * checked, so a link re-pointed between check and load cannot redirect it. A file swapped in place
 * between check and load needs write access to its folder, which the checks above deny to others.
 * On a file system without POSIX permissions the permission checks are skipped (there is no such
 * file system on macOS or Linux as they are used here).
 */
public final class LibraryTrust {
  private static final int MAX_LINKS = 40; // as the kernel's ELOOP limit

  private LibraryTrust() {}

  /**
   * Checks {@code library} and returns its real path.
   *
   * @param library the configured library path (absolute, or relative to the working folder)
   * @param sha256 the pinned hash (64 hex digits, either case), or null when not pinned
   * @param where names the config for messages (e.g. "/home/u/.config/strata/engine.yaml")
   * @throws PreflightRefused with one line naming the file and what to do
   */
  public static Path check(Path library, String sha256, String where) {
    Path abs = library.toAbsolutePath().normalize();
    if (!Files.exists(abs, LinkOption.NOFOLLOW_LINKS)) {
      throw new PreflightRefused(
          "engine library not found: "
              + abs
              + " (engine.library in "
              + where
              + "; build strata-ref with ./strata build, or rerun strata-setup --engine-lib PATH)");
    }
    // Walk the link chain by hand so every hop's folder is checked, not only the final one.
    Path hop = abs;
    Set<Path> seen = new HashSet<>();
    for (int i = 0; Files.isSymbolicLink(hop); i++) {
      requireNotWorldWritable(hop.getParent(), "folder of the engine library link " + hop, where);
      if (i >= MAX_LINKS || !seen.add(hop)) {
        throw new PreflightRefused("engine library " + abs + " is a symlink loop");
      }
      Path target;
      try {
        target = Files.readSymbolicLink(hop);
      } catch (IOException e) {
        throw new PreflightRefused("cannot read the engine library link " + hop + ": " + e);
      }
      hop = hop.resolveSibling(target).normalize();
      if (!Files.exists(hop, LinkOption.NOFOLLOW_LINKS)) {
        throw new PreflightRefused(
            "engine library " + abs + " is a symlink to " + hop + ", which does not exist");
      }
    }
    Path real;
    try {
      real = hop.toRealPath();
    } catch (IOException e) {
      throw new PreflightRefused(
          "cannot resolve the engine library " + abs + ": " + e.getMessage());
    }
    if (!Files.isRegularFile(real)) {
      throw new PreflightRefused(
          "engine library " + real + " is not a regular file (engine.library in " + where + ")");
    }
    requireNotWorldWritable(real, "engine library " + real, where);
    requireNotWorldWritable(real.getParent(), "folder of the engine library " + real, where);
    if (sha256 != null && !sha256.isBlank()) {
      String actual = sha256Of(real);
      if (!actual.equals(sha256.strip().toLowerCase(Locale.ROOT))) {
        throw new PreflightRefused(
            "engine library "
                + real
                + " does not match engine.sha256 in "
                + where
                + " (pinned "
                + abbreviate(sha256.strip().toLowerCase(Locale.ROOT))
                + ", file "
                + abbreviate(actual)
                + "): restore the library, or rerun strata-setup to pin the new one");
      }
    }
    return real;
  }

  /** The SHA-256 of a file, lower-case hex. */
  public static String sha256Of(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      int n;
      while ((n = in.read(buf)) > 0) {
        md.update(buf, 0, n);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (IOException e) {
      throw new PreflightRefused("cannot read the engine library " + file + ": " + e.getMessage());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private static void requireNotWorldWritable(Path p, String what, String where) {
    if (p == null) {
      return;
    }
    PosixFileAttributeView view =
        Files.getFileAttributeView(p, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    if (view == null) {
      return;
    }
    Set<PosixFilePermission> perms;
    try {
      perms = view.readAttributes().permissions();
    } catch (IOException e) {
      throw new PreflightRefused("cannot read the permissions of " + p + ": " + e.getMessage());
    }
    // A symlink's own mode bits mean nothing (always rwxrwxrwx on Linux): only folders and files.
    if (Files.isSymbolicLink(p)) {
      return;
    }
    if (perms.contains(PosixFilePermission.OTHERS_WRITE)) {
      throw new PreflightRefused(
          what
              + " is world-writable: anyone on this machine could replace the code the launcher"
              + " loads (chmod o-w it, or move the library to a folder only you can write; "
              + "engine.library in "
              + where
              + ")");
    }
  }

  private static String abbreviate(String hex) {
    return hex.length() > 16 ? hex.substring(0, 16) + "…" : hex;
  }
}
