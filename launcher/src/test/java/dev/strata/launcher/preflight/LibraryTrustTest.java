package dev.strata.launcher.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ExitCodes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

@DisabledOnOs(OS.WINDOWS)
class LibraryTrustTest {
  @TempDir Path tmp;

  private Path lib(Path dir, String name) throws IOException {
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path f = dir.resolve(name);
    Files.writeString(f, "not really ELF, but trust is about the file, not its content");
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
    return f;
  }

  /** chmod 1777: NIO cannot set the sticky bit. */
  private static void sticky(Path dir) throws IOException {
    try {
      Process p = new ProcessBuilder("chmod", "1777", dir.toString()).inheritIO().start();
      assertEquals(0, p.waitFor());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static PreflightRefused refused(Path p, String sha) {
    PreflightRefused r =
        assertThrows(PreflightRefused.class, () -> LibraryTrust.check(p, sha, "cfg.yaml"));
    assertEquals(ExitCodes.PREFLIGHT, r.exitCode());
    assertTrue(!r.getMessage().contains("\n"), "one line: " + r.getMessage());
    return r;
  }

  @Test
  void acceptsAPrivateFileAndReturnsItsRealPath() throws IOException {
    Path f = lib(tmp.resolve("lib"), "libx.so");
    assertEquals(f.toRealPath(), LibraryTrust.check(f, null, "cfg.yaml"));
  }

  @Test
  void refusesAMissingFileNamingTheConfigKey() {
    PreflightRefused r = refused(tmp.resolve("nope.so"), null);
    assertTrue(r.getMessage().startsWith("engine library not found: "), r.getMessage());
    assertTrue(r.getMessage().contains("engine.library in cfg.yaml"), r.getMessage());
  }

  @Test
  void refusesAFolder() throws IOException {
    Path d = Files.createDirectories(tmp.resolve("lib/libdir.so"));
    Files.setPosixFilePermissions(tmp.resolve("lib"), PosixFilePermissions.fromString("rwxr-xr-x"));
    assertTrue(refused(d, null).getMessage().contains("is not a regular file"));
  }

  @Test
  void refusesAWorldWritableFile() throws IOException {
    Path f = lib(tmp.resolve("lib"), "libx.so");
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
    assertTrue(refused(f, null).getMessage().contains("is world-writable"));
  }

  @Test
  void refusesAFileInAWorldWritableFolder() throws IOException {
    Path f = lib(tmp.resolve("open"), "libx.so");
    Files.setPosixFilePermissions(f.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
    assertTrue(refused(f, null).getMessage().startsWith("folder of the engine library"));
  }

  @Test
  void refusesASymlinkIntoAWorldWritablePlace() throws IOException {
    Path target = lib(tmp.resolve("open"), "libx.so");
    sticky(target.getParent()); // like /tmp: world-writable with the sticky bit
    Path safe = Files.createDirectories(tmp.resolve("safe"));
    Files.setPosixFilePermissions(safe, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path link = Files.createSymbolicLink(safe.resolve("libx.so"), target);
    assertTrue(refused(link, null).getMessage().contains("world-writable"));
  }

  @Test
  void refusesALinkThatLivesInAWorldWritableFolder() throws IOException {
    Path target = lib(tmp.resolve("safe"), "libx.so");
    Path open = Files.createDirectories(tmp.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path link = Files.createSymbolicLink(open.resolve("libx.so"), target);
    assertTrue(refused(link, null).getMessage().contains("engine library link"));
  }

  @Test
  void followsASafeLinkToItsTarget() throws IOException {
    Path target = lib(tmp.resolve("safe"), "libx.so.1");
    Path link = Files.createSymbolicLink(tmp.resolve("safe/libx.so"), target.getFileName());
    assertEquals(target.toRealPath(), LibraryTrust.check(link, null, "cfg.yaml"));
  }

  @Test
  void refusesADanglingLink() throws IOException {
    Path safe = Files.createDirectories(tmp.resolve("safe"));
    Files.setPosixFilePermissions(safe, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path link = Files.createSymbolicLink(safe.resolve("libx.so"), safe.resolve("gone.so"));
    assertTrue(refused(link, null).getMessage().contains("does not exist"));
  }

  @Test
  void checksThePinnedSha256EitherCase() throws IOException {
    Path f = lib(tmp.resolve("lib"), "libx.so");
    String sha = LibraryTrust.sha256Of(f);
    assertEquals(64, sha.length());
    assertEquals(f.toRealPath(), LibraryTrust.check(f, sha.toUpperCase(), "cfg.yaml"));
    Files.writeString(f, "tampered", StandardCharsets.UTF_8);
    PreflightRefused r = refused(f, sha);
    assertTrue(r.getMessage().contains("does not match engine.sha256"), r.getMessage());
    assertTrue(r.getMessage().contains(sha.substring(0, 16)), r.getMessage());
  }

  @Test
  void knownSha256() throws IOException {
    Path f = tmp.resolve("abc");
    Files.writeString(f, "abc");
    assertEquals(
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        LibraryTrust.sha256Of(f));
  }
}
