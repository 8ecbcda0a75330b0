package dev.strata.engine.ffm;

import dev.strata.engine.Sha256;
import dev.strata.engine.trust.TrustedPath;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The private copy of a verified engine library ({@link VerifiedLibrary.Strategy#PRIVATE_COPY}):
 * the checked bytes written into a folder only this user can reach, read back and compared, for a
 * dynamic loader that cannot load from the checked descriptor itself.
 */
final class PrivateCopy {
  private PrivateCopy() {}

  /**
   * Writes {@code bytes} into a new file {@code name} in the private folder {@code dir} ({@code
   * O_EXCL}, mode 0500 once written), reads it back through a checked descriptor and compares its
   * SHA-256 with {@code sha256}.
   *
   * @return the copy's path, to hand to the loader
   * @throws EngineLoadException when it cannot be written or reads back different
   */
  static Path write(byte[] bytes, String sha256, Path dir, String name, int me) {
    Path copy = dir.resolve(name);
    try {
      try (FileChannel out =
          FileChannel.open(
              copy,
              java.util.Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW),
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
          out.write(b);
        }
        out.force(true);
      }
      Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("r-x------"));
      try (TrustedPath.OpenFile back =
          TrustedPath.open(
              copy, new TrustedPath.Subject("private copy of the engine library", null), me)) {
        String again = Sha256.hex(back.readAll());
        if (!again.equals(sha256)) {
          throw new EngineLoadException(
              "the private copy "
                  + copy
                  + " of the engine library reads back different ("
                  + Sha256.compared("sha256", again, "expected", sha256)
                  + "): check the disk");
        }
      }
      return copy;
    } catch (IOException e) {
      throw new EngineLoadException(
          "cannot write the private copy of the engine library (" + copy + "): " + e.getMessage(),
          e);
    }
  }

  /**
   * A new folder, mode 0700, made with {@code mkdir} (fails if the name exists: the JDK retries
   * with another name), under the temporary folder, which must itself pass the ownership rule.
   */
  static Path folder(int me) {
    Path base = Path.of(System.getProperty("java.io.tmpdir"));
    try {
      Path real =
          TrustedPath.requireFolderAbove(
              base, new TrustedPath.Subject("private copy of the engine library", null), me);
      return Files.createTempDirectory(
          real,
          "strata-engine-",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (IOException e) {
      throw new EngineLoadException(
          "cannot create a private folder for the engine library under "
              + base
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
