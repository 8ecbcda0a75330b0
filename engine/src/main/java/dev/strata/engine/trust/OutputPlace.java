package dev.strata.engine.trust;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;

/**
 * Where a command writes files, and how it creates them (docs/RELIABILITY.md, "Where files are
 * written"). One rule for every writer — {@code strata-setup --out}, {@code strata-setup demo-model
 * --out}, {@code strata-launch demo --dir}:
 *
 * <ol>
 *   <li>before anything is written, the folder that will hold the file and every folder and link on
 *       the way pass launch's ownership rule ({@link OwnerRule} through {@link
 *       TrustedPath#requireWritableFolder}): writable only by root or the user; a sticky root
 *       folder such as {@code /tmp} may be passed through, never hold the file. A refusal is one
 *       line, exit 3 ({@link TrustRefused}), naming the folder, its owner and mode and the remedy;
 *   <li>folders the command makes are {@code rwxr-xr-x} whatever the umask, and the rule is checked
 *       again once they exist (another user may have made one first in a shared folder);
 *   <li>a new file is created with {@code O_CREAT|O_EXCL|O_NOFOLLOW} ({@link #createNew}), so a
 *       symlink planted at its name is never written through, even in a folder that passes; a stale
 *       file of that name is removed only when it is a regular file the user owns.
 * </ol>
 */
public final class OutputPlace {
  /** Folders made for output: the umask can only take bits away, never add group write. */
  static final Set<PosixFilePermission> FOLDER_PERMS = PosixFilePermissions.fromString("rwxr-xr-x");

  /** New files: rw-r--r--. */
  static final Set<PosixFilePermission> FILE_PERMS = PosixFilePermissions.fromString("rw-r--r--");

  private OutputPlace() {}

  /**
   * Checks the place of {@code file} (no folder made, nothing written).
   *
   * @throws TrustRefused (exit 3) naming the first folder or link that fails
   * @throws IOException when an attribute on the way cannot be read
   */
  public static void check(Path file, TrustedPath.Subject subject) throws IOException {
    TrustedPath.requireWritableFolder(file, subject, TrustedPath.me());
  }

  /**
   * {@link #check}s the place of {@code file}, makes its missing folders ({@code rwxr-xr-x}) and
   * checks again: a folder someone else made first in a shared folder is caught here.
   *
   * @throws TrustRefused (exit 3) naming the first folder or link that fails
   * @throws IOException when a folder cannot be made
   */
  public static void prepare(Path file, TrustedPath.Subject subject) throws IOException {
    check(file, subject);
    Path folder = file.toAbsolutePath().getParent();
    Files.createDirectories(folder, attrs(folder, FOLDER_PERMS));
    check(file, subject);
  }

  /**
   * Creates {@code file} new ({@code CREATE_NEW} + {@code NOFOLLOW_LINKS}, mode {@code rw-r--r--})
   * and opens it for writing. A file already at that name is removed first only when it is a
   * regular file owned by this user (a {@code .partial} left by a crash); anything else — a
   * symlink, a folder, another user's file — is refused and left alone.
   *
   * @throws TrustRefused (exit 3) when something other than the user's own regular file is there
   * @throws IOException when it cannot be created (a {@link
   *     java.nio.file.FileAlreadyExistsException} when a file appeared at the name meanwhile)
   */
  public static FileChannel createNew(Path file, TrustedPath.Subject subject) throws IOException {
    removeStale(file, subject, TrustedPath.me());
    Path folder = file.toAbsolutePath().getParent();
    return FileChannel.open(
        file,
        Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
        attrs(folder, FILE_PERMS));
  }

  /** Removes a leftover regular file of {@code me} at {@code file}; refuses anything else. */
  static void removeStale(Path file, TrustedPath.Subject subject, int me) throws IOException {
    Map<String, Object> a;
    try {
      a = Files.readAttributes(file, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return;
    }
    int mode = (Integer) a.get("mode");
    int uid = (Integer) a.get("uid");
    int type = mode & 0170000;
    if (type == 0100000 && uid == me) {
      Files.delete(file); // a folder only root and the user may write: nobody swaps it meanwhile
      return;
    }
    String kind =
        switch (type) {
          case 0120000 -> "a symlink";
          case 0040000 -> "a folder";
          case 0100000 -> "a file";
          default -> "a special file";
        };
    throw new TrustRefused(
        file
            + " is "
            + kind
            + (type == 0120000 ? " (to " + linkTarget(file) + ")" : "")
            + " owned by "
            + OwnerMessage.owner(file, uid)
            + ", mode "
            + String.format("%04o", mode & 07777)
            + ", in the way of the "
            + subject.what()
            + ": it is not a leftover of this command, so it is neither followed nor replaced"
            + " (look at what it is, then remove it yourself"
            + subject.suffix()
            + ")");
  }

  private static String linkTarget(Path link) {
    try {
      return Files.readSymbolicLink(link).toString();
    } catch (IOException e) {
      return "?";
    }
  }

  private static FileAttribute<?>[] attrs(Path folder, Set<PosixFilePermission> perms) {
    return folder.getFileSystem().supportedFileAttributeViews().contains("posix")
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(perms)}
        : new FileAttribute<?>[0];
  }
}
