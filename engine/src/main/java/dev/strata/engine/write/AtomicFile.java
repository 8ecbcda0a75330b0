package dev.strata.engine.write;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The durable write under {@link ConfigWriter}: a file replaced atomically (a temp file in the same
 * folder, written and fsynced, renamed over the target with {@code ATOMIC_MOVE}, the folder
 * fsynced), with the mode it is given; a crash at any point leaves the old file or the new one.
 */
final class AtomicFile {
  private AtomicFile() {}

  /** A new file's mode: rw-r--r--. */
  static final Set<PosixFilePermission> DEFAULT_PERMS =
      PosixFilePermissions.fromString("rw-r--r--");

  /** {@link #atomicWrite}, a failure named by the file that failed (the backup, the config …). */
  static void writeNamed(Path p, byte[] content, Set<PosixFilePermission> perms) {
    try {
      atomicWrite(p, content, perms);
    } catch (IOException e) {
      throw new StrataException(ExitCodes.USAGE, p + ": cannot write: " + reason(e), e);
    }
  }

  /** The replaced config's mode without group/other write: launch refuses those bits. */
  static Set<PosixFilePermission> launchable(Set<PosixFilePermission> perms) {
    Set<PosixFilePermission> p = java.util.EnumSet.noneOf(PosixFilePermission.class);
    p.addAll(perms);
    p.remove(PosixFilePermission.GROUP_WRITE);
    p.remove(PosixFilePermission.OTHERS_WRITE);
    return p;
  }

  /**
   * Temp file in the same folder (a rename never crosses file systems), write, fsync, atomic
   * rename, fsync the folder.
   */
  static void atomicWrite(Path target, byte[] content, Set<PosixFilePermission> perms)
      throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp", attrs(dir));
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      // The mode after the bytes: a read-only (0444) config's replacement must be writable by
      // its writer until it is written.
      if (supportsPosix(dir)) {
        Files.setPosixFilePermissions(tmp, perms);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("this file system cannot rename atomically (" + dir + ")", e);
      }
      fsyncDirectory(dir);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * Makes the rename durable. Linux and macOS allow opening a folder for reading and fsyncing it;
   * Windows refuses to open one — there the rename is as durable as the OS makes it.
   */
  static void fsyncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // the platform refuses a directory channel: nothing more we can do
    }
  }

  /** A new file's mode (rw-r--r--) in {@code dir}, where the file system has modes. */
  static FileAttribute<?>[] attrs(Path dir) {
    return supportsPosix(dir)
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(DEFAULT_PERMS)}
        : new FileAttribute<?>[0];
  }

  static boolean supportsPosix(Path dir) {
    return dir.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  static Set<PosixFilePermission> permissionsOf(Path file) throws IOException {
    return supportsPosix(file.toAbsolutePath().getParent())
        ? Files.getPosixFilePermissions(file)
        : DEFAULT_PERMS;
  }

  static String reason(IOException e) {
    return dev.strata.engine.IoReason.of(e);
  }
}
