package dev.strata.launcher.preflight;

import dev.strata.engine.ffm.LibraryFile;
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
 *   <li>a world-writable folder anywhere above it, up to {@code /}, unless it has the sticky bit
 *       (like {@code /tmp}, mode 1777): without it anyone may rename the folder below and put a
 *       tree of their own in its place;
 *   <li>a symlink, at any hop of its chain, that lives in or points into a world-writable folder
 *       (the folders above each hop are checked the same way);
 *   <li>a file whose SHA-256 differs from {@code engine.sha256} when the config pins one;
 *   <li>a file that is not a whole shared library for this machine's loader ({@link LibraryFile}:
 *       the header and segment checks {@code NativeEngine.load} makes before {@code dlopen}, so a
 *       {@code --dry-run} refuses what the launch would).
 * </ul>
 *
 * The check returns the real path (every link resolved): the launcher loads exactly the file it
 * checked, so a link re-pointed between check and load cannot redirect it. A file swapped in place
 * between check and load needs write access to its folder, which the checks above deny to others.
 * Ownership is not checked: a library or folder owned by another user that is not world-writable
 * passes (docs/RELIABILITY.md). The sticky bit is read from the {@code unix:mode} attribute (Linux
 * and macOS); where that view is missing, a world-writable folder above is refused too. On a file
 * system without POSIX permissions the permission checks are skipped (there is no such file system
 * on macOS or Linux as they are used here).
 */
public final class LibraryTrust {
  private static final int MAX_LINKS = 40; // as the kernel's ELOOP limit

  private static final int OTHERS_WRITE = 0002;
  private static final int STICKY = 01000;

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
      requireFolderSafe(hop.getParent(), "engine library link " + hop, where);
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
    // the library as the config names it, and what it resolves to when that differs
    String name = named(abs, real);
    if (!Files.isRegularFile(real)) {
      throw new PreflightRefused(
          "engine library " + name + " is not a regular file (engine.library in " + where + ")");
    }
    if (worldWritable(real)) {
      throw new PreflightRefused(
          "engine library "
              + name
              + " is world-writable: anyone on this machine could replace the code the launcher"
              + " loads (chmod o-w "
              + real
              + ", or move the library to a folder only you can write; engine.library in "
              + where
              + ")");
    }
    requireFolderSafe(real.getParent(), "engine library " + name, where);
    if (sha256 != null && !sha256.isBlank()) {
      String actual = sha256Of(real);
      if (!actual.equals(sha256.strip().toLowerCase(Locale.ROOT))) {
        throw new PreflightRefused(
            "engine library "
                + name
                + " does not match engine.sha256 in "
                + where
                + " (pinned "
                + abbreviate(sha256.strip().toLowerCase(Locale.ROOT))
                + ", file "
                + abbreviate(actual)
                + "): restore the library, or rerun strata-setup to pin the new one");
      }
    }
    String problem;
    try {
      problem = LibraryFile.problem(real);
    } catch (IOException e) {
      throw new PreflightRefused(
          "engine library " + name + " cannot be read: " + e.getMessage(), e);
    }
    if (problem != null) {
      // the same words as NativeEngine.load, which makes the same check before dlopen
      throw new PreflightRefused("engine library " + name + " " + problem);
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

  /**
   * How a message names the library: the path the config holds, with what it resolves to when that
   * differs, so a refusal about the target still shows the name the user wrote.
   */
  static String named(Path configured, Path real) {
    if (configured.equals(real)) {
      return configured.toString();
    }
    return configured
        + (Files.isSymbolicLink(configured) ? " (a symlink to " : " (resolved: ")
        + real
        + ")";
  }

  /**
   * {@code folder} itself must not be world-writable (even sticky: others could plant the name
   * first); every folder above it, up to {@code /}, must not be world-writable unless sticky.
   */
  private static void requireFolderSafe(Path folder, String what, String where) {
    if (folder == null) {
      return;
    }
    Path dir;
    try {
      dir = folder.toRealPath();
    } catch (IOException e) {
      throw new PreflightRefused("cannot resolve the folder " + folder + ": " + e.getMessage());
    }
    if (worldWritable(dir)) {
      throw new PreflightRefused(
          "folder "
              + dir
              + " of the "
              + what
              + " is world-writable: anyone on this machine could replace the code the launcher"
              + " loads (chmod o-w "
              + dir
              + ", or move the library to a folder only you can write; engine.library in "
              + where
              + ")");
    }
    for (Path up = dir.getParent(); up != null; up = up.getParent()) {
      Integer mode = mode(up);
      if (mode != null && !safeAbove(mode)) {
        throw new PreflightRefused(
            "folder "
                + up
                + " above the "
                + what
                + " is world-writable: anyone on this machine could rename what it holds and"
                + " replace the code the launcher loads (chmod o-w "
                + up
                + ", or move the library to a folder only you can write; engine.library in "
                + where
                + ")");
      }
    }
  }

  /**
   * Whether a folder above the library is safe with this mode: not world-writable, or sticky (in a
   * sticky folder only an entry's owner may rename or delete it).
   */
  static boolean safeAbove(int mode) {
    return (mode & OTHERS_WRITE) == 0 || (mode & STICKY) != 0;
  }

  private static boolean worldWritable(Path p) {
    Integer mode = mode(p);
    return mode != null && (mode & OTHERS_WRITE) != 0;
  }

  /**
   * The permission bits of {@code p} (a folder or a file, never followed if a link), with the
   * sticky bit where the {@code unix} view reads it; without that view the sticky bit is left clear
   * (so a world-writable folder above counts as unsafe). Null where there are no POSIX permissions.
   */
  private static Integer mode(Path p) {
    try {
      if (p.getFileSystem().supportedFileAttributeViews().contains("unix")) {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
      }
      PosixFileAttributeView view =
          Files.getFileAttributeView(p, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
      if (view == null) {
        return null;
      }
      int mode = 0;
      for (PosixFilePermission perm : view.readAttributes().permissions()) {
        mode |= 0400 >> perm.ordinal(); // OWNER_READ .. OTHERS_EXECUTE, in mode-bit order
      }
      return mode;
    } catch (IOException e) {
      throw new PreflightRefused("cannot read the permissions of " + p + ": " + e.getMessage());
    }
  }

  private static String abbreviate(String hex) {
    return hex.length() > 16 ? hex.substring(0, 16) + "…" : hex;
  }
}
