package dev.strata.launcher.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.ffm.VerifiedLibrary;
import dev.strata.testsupport.StandInLibrary;
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
    Files.write(f, StandInLibrary.smallest());
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

  /** The real path of the file the check opened (and closes again). */
  private static Path accepted(Path p, String sha) {
    try (VerifiedLibrary v = LibraryTrust.check(p, sha, "cfg.yaml")) {
      return v.checked().real();
    }
  }

  private static PreflightRefused refused(Path p, String sha) {
    PreflightRefused r =
        assertThrows(PreflightRefused.class, () -> LibraryTrust.check(p, sha, "cfg.yaml").close());
    assertEquals(ExitCodes.PREFLIGHT, r.exitCode());
    assertTrue(!r.getMessage().contains("\n"), "one line: " + r.getMessage());
    return r;
  }

  @Test
  void acceptsAPrivateFileAndReturnsItsRealPath() throws IOException {
    Path f = lib(tmp.resolve("lib"), "libx.so");
    assertEquals(f.toRealPath(), accepted(f, null));
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
    assertTrue(refused(d, null).getMessage().contains("is a folder, not a regular file"));
  }

  @Test
  void refusesAWorldWritableFile() throws IOException {
    Path f = lib(tmp.resolve("lib"), "libx.so");
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
    String m = refused(f, null).getMessage();
    assertTrue(m.contains("mode 0666) is writable by group and others"), m);
    assertTrue(m.contains("(chmod go-w " + f.toRealPath() + "; engine.library in cfg.yaml)"), m);
  }

  @Test
  void refusesAGroupWritableFileAndFolder() throws IOException {
    Path f = lib(tmp.resolve("grp"), "libx.so");
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-r--"));
    assertTrue(refused(f, null).getMessage().contains("is writable by its group"));
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
    Files.setPosixFilePermissions(f.getParent(), PosixFilePermissions.fromString("rwxrwxr-x"));
    String m = refused(f, null).getMessage();
    assertTrue(m.startsWith("folder " + f.getParent().toRealPath() + " of the engine library"), m);
  }

  @Test
  void refusesAFileInAWorldWritableFolder() throws IOException {
    Path f = lib(tmp.resolve("open"), "libx.so");
    Files.setPosixFilePermissions(f.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
    Path folder = f.getParent().toRealPath();
    assertEquals(
        "folder "
            + folder
            + " of the engine library "
            + f
            + " (owner "
            + System.getProperty("user.name")
            + " (uid "
            + dev.strata.engine.trust.TrustedPath.me()
            + "), mode 0777) is writable by group and others: they could replace what runs"
            + " (chmod go-w "
            + folder
            + "; engine.library in cfg.yaml)",
        refused(f, null).getMessage());
  }

  @Test
  void refusesAWorldWritableFolderFurtherUpWithoutTheStickyBit() throws IOException {
    Path pub = Files.createDirectories(tmp.resolve("pub"));
    Path f = lib(pub.resolve("sub/deeper"), "libx.so");
    Files.setPosixFilePermissions(pub, PosixFilePermissions.fromString("rwxrwxrwx"));
    String m = refused(f, null).getMessage();
    assertTrue(
        m.startsWith("folder " + pub.toRealPath() + " above the engine library " + f + " (owner"),
        m);
    assertTrue(m.contains("(chmod go-w " + pub.toRealPath() + ";"), m);
    assertTrue(m.contains("without being a sticky root folder"), m);
  }

  @Test
  void acceptsAStickyWorldWritableFolderFurtherUp() throws IOException {
    Path pub = Files.createDirectories(tmp.resolve("pub"));
    Path f = lib(pub.resolve("sub"), "libx.so");
    sticky(pub); // like /tmp: others may not rename pub/sub
    assertEquals(f.toRealPath(), accepted(f, null));
  }

  @Test
  void refusesAFileThatIsNotASharedLibraryBeforeAnythingLoadsIt() throws IOException {
    Path f = lib(tmp.resolve("lib"), "libx.so");
    Files.writeString(f, "#!/bin/sh\necho not a library\n");
    assertEquals(
        "engine library "
            + f
            + " is not a shared library (no ELF or Mach-O header; is engine.library the right"
            + " file?)",
        refused(f, null).getMessage());
  }

  @Test
  void aRefusedLinkIsNamedAsTheConfigNamesItWithItsTarget() throws IOException {
    Path target = lib(tmp.resolve("open"), "libx.so");
    Files.setPosixFilePermissions(target.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
    Path safe = Files.createDirectories(tmp.resolve("safe"));
    Files.setPosixFilePermissions(safe, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path link = Files.createSymbolicLink(safe.resolve("libx.so"), target);
    String m = refused(link, null).getMessage();
    assertTrue(
        m.startsWith(
            "folder " + target.getParent().toRealPath() + " of the engine library " + link),
        m);
  }

  @Test
  void refusesASymlinkIntoAWorldWritablePlace() throws IOException {
    Path target = lib(tmp.resolve("open"), "libx.so");
    sticky(target.getParent()); // like /tmp: world-writable with the sticky bit
    Path safe = Files.createDirectories(tmp.resolve("safe"));
    Files.setPosixFilePermissions(safe, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path link = Files.createSymbolicLink(safe.resolve("libx.so"), target);
    String m = refused(link, null).getMessage();
    assertTrue(m.contains("is writable by group and others"), m);
  }

  @Test
  void refusesALinkThatLivesInAWorldWritableFolder() throws IOException {
    Path target = lib(tmp.resolve("safe"), "libx.so");
    Path open = Files.createDirectories(tmp.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path link = Files.createSymbolicLink(open.resolve("libx.so"), target);
    String m = refused(link, null).getMessage();
    assertTrue(m.startsWith("folder " + open.toRealPath() + " of the engine library " + link), m);
  }

  @Test
  void followsASafeLinkToItsTarget() throws IOException {
    Path target = lib(tmp.resolve("safe"), "libx.so.1");
    Path link = Files.createSymbolicLink(tmp.resolve("safe/libx.so"), target.getFileName());
    assertEquals(target.toRealPath(), accepted(link, null));
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
    assertEquals(f.toRealPath(), accepted(f, sha.toUpperCase()));
    Files.writeString(f, "tampered", StandardCharsets.UTF_8);
    PreflightRefused r = refused(f, sha);
    assertTrue(r.getMessage().contains("does not match engine.sha256"), r.getMessage());
    assertTrue(r.getMessage().contains(sha.substring(0, 16)), r.getMessage());
  }

  @Test
  void aPinDifferingInAnyOneDigitIsRefused() throws IOException {
    // every position matters: a check that compared a prefix (or skipped the tail) would let a
    // library whose hash shares that prefix run
    Path f = lib(tmp.resolve("lib"), "libx.so");
    String sha = LibraryTrust.sha256Of(f);
    for (int at : new int[] {0, 15, 16, 31, 32, 62, 63}) {
      char c = sha.charAt(at);
      String wrong = sha.substring(0, at) + (c == '0' ? '1' : '0') + sha.substring(at + 1);
      PreflightRefused r = refused(f, wrong);
      assertTrue(
          r.getMessage().contains("does not match engine.sha256"), at + ": " + r.getMessage());
    }
    // a truncated or an over-long pin is not a match either
    assertTrue(refused(f, sha.substring(0, 63)).getMessage().contains("does not match"));
    assertTrue(refused(f, sha + "0").getMessage().contains("does not match"));
    assertEquals(f.toRealPath(), accepted(f, " " + sha + " "));
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
