package dev.strata.engine.trust;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.testsupport.OpenFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The walk to a file that decides what runs, as an attacker on the same machine would probe it:
 * chains of symlinks (relative, absolute, through folders), {@code ..} after a link, loops and the
 * 40-link bound, links that live in or lead into folders others may write, the file swapped between
 * the walk and the open, and objects that are not files. Each case asserts the exact refusal (exit
 * 3, one line naming the path and what to do) or the exact file accepted — and where the kernel has
 * its own answer (the real path, the link bound) that the walk agrees with it (docs/RELIABILITY.md,
 * "Trusted library"). Ownership by another user is in {@link TrustedPathOwnerTest}.
 */
@EnabledOnOs({OS.LINUX, OS.MAC})
class TrustedPathWalkTest {
  static final int ME = TrustedPath.me();
  static final TrustedPath.Subject CONFIG = new TrustedPath.Subject("config", "--config c.yaml");

  @TempDir Path tmp;
  Path base;

  @BeforeEach
  void base() throws IOException {
    base = folder(tmp.toRealPath(), "0755");
  }

  static Path folder(Path p, String mode) throws IOException {
    Files.createDirectories(p);
    chmod(mode, p);
    return p;
  }

  static Path file(Path p, String text) throws IOException {
    Files.createDirectories(p.getParent());
    Files.writeString(p, text, StandardCharsets.UTF_8);
    chmod("0644", p);
    return p;
  }

  /** {@code chmod MODE p} (octal; a sticky bit, which NIO cannot set, through chmod(1)). */
  static void chmod(String mode, Path p) throws IOException {
    if (mode.startsWith("0")) {
      StringBuilder rwx = new StringBuilder();
      for (char c : mode.substring(1).toCharArray()) {
        int bits = c - '0';
        rwx.append((bits & 4) != 0 ? 'r' : '-')
            .append((bits & 2) != 0 ? 'w' : '-')
            .append((bits & 1) != 0 ? 'x' : '-');
      }
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(rwx.toString()));
      return;
    }
    try {
      Process c = new ProcessBuilder("chmod", mode, p.toString()).inheritIO().start();
      assertTrue(c.waitFor(30, TimeUnit.SECONDS));
      assertEquals(0, c.exitValue(), "chmod " + mode + " " + p);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** The file the walk opened for {@code p}; its bytes are the ones read through the descriptor. */
  static Path accepted(Path p, String text) throws IOException {
    try (TrustedPath.OpenFile f = TrustedPath.open(p, CONFIG, ME)) {
      assertEquals(text, new String(f.readAll(), StandardCharsets.UTF_8));
      return f.real();
    }
  }

  static String refused(Path p) {
    TrustRefused r =
        assertThrows(TrustRefused.class, () -> TrustedPath.open(p, CONFIG, ME).close(), "" + p);
    assertEquals(3, r.exitCode());
    assertFalse(r.getMessage().contains("\n"), r.getMessage());
    return r.getMessage();
  }

  /** How a message names the launching user (and the owner of what the test made). */
  static String me() {
    return (ME == 0 ? "root" : System.getProperty("user.name")) + " (uid " + ME + ")";
  }

  // ------------------------------------------------------------------ chains

  @Test
  void aChainOfRelativeAndAbsoluteLinksEndsAtTheFileTheKernelWouldOpen() throws IOException {
    Path lib = file(base.resolve("c/lib.so"), "the real one");
    folder(base.resolve("a"), "0755");
    folder(base.resolve("b"), "0755");
    // a/l1 -> ../b/l2 (relative, climbing) -> <abs>/c/l3 (absolute) -> lib.so (same folder)
    Path l1 = Files.createSymbolicLink(base.resolve("a/l1"), Path.of("../b/l2"));
    Files.createSymbolicLink(base.resolve("b/l2"), base.resolve("c/l3"));
    Files.createSymbolicLink(base.resolve("c/l3"), Path.of("lib.so"));
    assertEquals(lib, accepted(l1, "the real one"));
    assertEquals(l1.toRealPath(), lib); // the kernel's own answer
  }

  @Test
  void aLinkToAFolderInTheMiddleIsFollowedAndTheRestWalkedFromItsTarget() throws IOException {
    Path lib = file(base.resolve("store/v2/lib.so"), "v2");
    Path lib1 = file(base.resolve("store/v1/lib.so"), "v1");
    folder(base.resolve("cur"), "0755");
    Path link = Files.createSymbolicLink(base.resolve("cur/engine"), Path.of("../store/v2"));
    assertEquals(lib, accepted(link.resolve("lib.so"), "v2"));
    Files.delete(link);
    Files.createSymbolicLink(link, base.resolve("store/v1"));
    assertEquals(lib1, accepted(link.resolve("lib.so"), "v1"));
  }

  /** l0 -> l1 -> ... -> l{n-1} -> lib.so: n links, all in one folder. */
  Path chain(String folder, int n) throws IOException {
    Path d = folder(base.resolve(folder), "0755");
    file(d.resolve("lib.so"), "end of the chain");
    for (int i = 0; i < n; i++) {
      Files.createSymbolicLink(d.resolve("l" + i), Path.of(i == n - 1 ? "lib.so" : "l" + (i + 1)));
    }
    return d.resolve("l0");
  }

  @Test
  @EnabledOnOs(OS.LINUX) // Linux's MAXSYMLINKS is 40; macOS's kernel stops at 32
  void fortyLinksAreFollowedAndOneMoreIsRefusedAsTheKernelDoes() throws IOException {
    Path forty = chain("forty", TrustedPath.MAX_LINKS);
    assertEquals(base.resolve("forty/lib.so"), accepted(forty, "end of the chain"));
    assertEquals("end of the chain", Files.readString(forty)); // the kernel follows 40 too

    Path fortyOne = chain("forty-one", TrustedPath.MAX_LINKS + 1);
    assertEquals(
        "config "
            + fortyOne
            + " is a symlink loop, or a chain of more than 40 symlinks (point to the file"
            + " directly; --config c.yaml)",
        refused(fortyOne));
    FileSystemException kernel =
        assertThrows(FileSystemException.class, () -> Files.readString(fortyOne));
    assertTrue(kernel.getMessage().contains("symbolic links"), kernel.getMessage()); // ELOOP
  }

  @Test
  void loopsAreRefusedNotFollowedForever() throws IOException {
    Path d = folder(base.resolve("loops"), "0755");
    Path a = Files.createSymbolicLink(d.resolve("a"), Path.of("b"));
    Files.createSymbolicLink(d.resolve("b"), d.resolve("a"));
    assertTrue(refused(a).startsWith("config " + a + " is a symlink loop"));
    Path self = Files.createSymbolicLink(d.resolve("self"), Path.of("self"));
    assertTrue(refused(self).startsWith("config " + self + " is a symlink loop"));
    // a folder link to its own folder: every extra name is one more link
    Files.createSymbolicLink(d.resolve("here"), Path.of("."));
    file(d.resolve("lib.so"), "x");
    Path deep = d.resolve("here/".repeat(41) + "lib.so");
    assertTrue(refused(deep).startsWith("config " + deep + " is a symlink loop"));
    assertEquals(d.resolve("lib.so"), accepted(d.resolve("here/".repeat(40) + "lib.so"), "x"));
  }

  // ------------------------------------------------------------------ ..

  @Test
  void dotDotAfterALinkClimbsFromWhereTheLinkLeadsNotFromTheLink() throws IOException {
    Path real = file(base.resolve("x/lib.so"), "beside the link's target");
    folder(base.resolve("x/y"), "0755");
    file(base.resolve("a/lib.so"), "a decoy a textual .. would pick");
    Files.createSymbolicLink(base.resolve("a/link"), base.resolve("x/y"));
    Path given = base.resolve("a/link/../lib.so");
    assertEquals(real, accepted(given, "beside the link's target"));
    assertEquals(given.toRealPath(), real); // as the kernel resolves it
    assertEquals(base.resolve("a/lib.so"), given.normalize()); // what the walk must not do
  }

  @Test
  void dotDotAboveTheRootIsTheRootAndDotIsNothing() throws IOException {
    Path lib = file(base.resolve("lib.so"), "x");
    Path given = Path.of("/../.." + base + "/./lib.so");
    assertEquals(lib, accepted(given, "x"));
  }

  @Test
  void aFolderPathEndingInDotDotIsItsParent() throws IOException {
    folder(base.resolve("sub"), "0755");
    assertEquals(base, TrustedPath.requireFolderAbove(base.resolve("sub/.."), CONFIG, ME));
    assertEquals(Path.of("/"), TrustedPath.requireFolderAbove(Path.of("/"), CONFIG, ME));
    // the climb out of a folder others may write still passes through it: refused, as "above"
    Path open = folder(base.resolve("open"), "0777");
    Path up = open.resolve("..");
    assertEquals(
        "folder "
            + open
            + " above the config "
            + up
            + " (owner "
            + me()
            + ", mode 0777) is writable by group and others without being a sticky root folder:"
            + " they could replace what runs (chmod go-w "
            + open
            + "; --config c.yaml)",
        assertThrows(TrustRefused.class, () -> TrustedPath.requireFolderAbove(up, CONFIG, ME))
            .getMessage());
  }

  // ------------------------------------------------------------------ folders others may write

  @Test
  void aLinkInAFolderItsGroupMayWriteIsRefusedNamingThatFolder() throws IOException {
    Path lib = file(base.resolve("safe/lib.so"), "x");
    Path grp = folder(base.resolve("grp"), "0775");
    Path link = Files.createSymbolicLink(grp.resolve("lib.so"), lib);
    assertEquals(
        "folder "
            + grp
            + " of the config "
            + link
            + " (owner "
            + me()
            + ", mode 0775) is writable by its group: they could replace what runs (chmod go-w "
            + grp
            + "; --config c.yaml)",
        refused(link));
  }

  @Test
  void aLinkIntoAFolderOthersMayWriteIsRefusedNamingThatFolder() throws IOException {
    Path open = folder(base.resolve("open"), "0757");
    Path lib = file(open.resolve("lib.so"), "x");
    Path link = Files.createSymbolicLink(folder(base.resolve("safe"), "0755").resolve("l"), lib);
    assertEquals(
        "folder "
            + open
            + " of the config "
            + link
            + " (owner "
            + me()
            + ", mode 0757) is writable by others: they could replace what runs (chmod go-w "
            + open
            + "; --config c.yaml)",
        refused(link));
    // further up the link's target: "above", and the sticky bit is what would have made it pass
    Path pub = folder(base.resolve("pub"), "0777");
    file(pub.resolve("sub/lib.so"), "x");
    folder(pub.resolve("sub"), "0755");
    Path dirLink = Files.createSymbolicLink(base.resolve("safe/d"), pub.resolve("sub"));
    Path viaDir = dirLink.resolve("lib.so");
    assertTrue(
        refused(viaDir)
            .startsWith(
                "folder "
                    + pub
                    + " above the config "
                    + viaDir
                    + " (owner "
                    + me()
                    + ", mode 0777) is writable by group and others without being a sticky root"
                    + " folder: "));
  }

  @Test
  void aStickyRootFolderMayBePassedThroughButNeverHoldTheFileOrALink() throws IOException {
    Assumptions.assumeTrue(ME == 0, "a root-owned sticky folder needs root to make");
    Path shared = folder(base.resolve("shared"), "1777"); // like /tmp
    // passed through: others cannot rename shared/mine (sticky), and mine passes on its own
    Path mine = file(folder(shared.resolve("mine"), "0755").resolve("lib.so"), "mine");
    assertEquals(mine, accepted(mine, "mine"));
    assertEquals(
        shared.resolve("mine"), TrustedPath.requireFolderAbove(shared.resolve("mine"), CONFIG, ME));
    assertEquals(shared, TrustedPath.requireFolderAbove(shared, CONFIG, ME));
    // holding the file: anyone may create a name there first
    Path direct = file(shared.resolve("lib.so"), "x");
    assertEquals(
        "folder "
            + shared
            + " of the config "
            + direct
            + " (owner root (uid 0), mode 1777) is writable by group and others: they could"
            + " replace what runs (move the config to a folder only root can write; --config"
            + " c.yaml)",
        refused(direct));
    // holding a link, even one to a good file
    Path link = Files.createSymbolicLink(shared.resolve("l"), mine);
    assertTrue(refused(link).startsWith("folder " + shared + " of the config " + link + " ("));
  }

  @Test
  void aFolderAtTheEndOfTheWalkIsHeldToThePassedThroughRule() throws IOException {
    Path open = folder(base.resolve("open"), "0777");
    TrustRefused r =
        assertThrows(TrustRefused.class, () -> TrustedPath.requireFolderAbove(open, CONFIG, ME));
    assertTrue(
        r.getMessage()
            .startsWith("folder " + open + " above the config " + open + " (owner " + me()),
        r.getMessage());
    Path grpHolder = folder(base.resolve("g"), "0770");
    Path inIt = file(grpHolder.resolve("lib.so"), "x");
    assertTrue(refused(inIt).startsWith("folder " + grpHolder + " of the config " + inIt));
    Path below = file(grpHolder.resolve("deeper/lib.so"), "x");
    chmod("0755", below.getParent());
    assertTrue(refused(below).startsWith("folder " + grpHolder + " above the config " + below));
  }

  // ------------------------------------------------------------------ between the walk and the
  // open

  @Test
  void aFileSwappedForALinkBetweenTheWalkAndTheOpenIsRefused() throws IOException {
    Path lib = file(base.resolve("safe/lib.so"), "checked");
    Path elsewhere = file(base.resolve("elsewhere/lib.so"), "planted");
    Path real = TrustedPath.resolve(lib, CONFIG, ME);
    Files.delete(lib);
    Files.createSymbolicLink(lib, elsewhere);
    TrustRefused r =
        assertThrows(
            TrustRefused.class, () -> TrustedPath.openResolved(lib, real, CONFIG, ME).close());
    assertEquals(
        "config "
            + lib
            + " became a symlink while it was being checked: something is changing it (find out"
            + " what, then try again; --config c.yaml)",
        r.getMessage());
    assertEquals(3, r.exitCode());
  }

  @Test
  void aFileReplacedBetweenTheWalkAndTheOpenIsJudgedByWhatWasOpened() throws IOException {
    Path lib = file(base.resolve("safe/lib.so"), "checked");
    Path real = TrustedPath.resolve(lib, CONFIG, ME);
    Path other = file(base.resolve("safe/other"), "replaced");
    chmod("0666", other);
    Files.move(other, lib, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    TrustRefused r =
        assertThrows(
            TrustRefused.class, () -> TrustedPath.openResolved(lib, real, CONFIG, ME).close());
    assertTrue(
        r.getMessage().startsWith("config " + lib + " (owner " + me() + ", mode 0666) is writable"),
        r.getMessage());
    Files.delete(lib);
    NoSuchFileException gone =
        assertThrows(
            NoSuchFileException.class,
            () -> TrustedPath.openResolved(lib, real, CONFIG, ME).close());
    assertEquals(lib.toString(), gone.getFile());
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aRefusedFileLeavesNoDescriptorOpen() throws IOException {
    Path lib = file(base.resolve("safe/lib.so"), "x");
    chmod("0664", lib);
    for (int i = 0; i < 3; i++) {
      refused(lib);
    }
    assertEquals(0, OpenFiles.on(lib), "a descriptor of the refused file is still open");
    try (TrustedPath.OpenFile f = TrustedPath.open(base.resolve("safe"), CONFIG, ME)) {
      throw new AssertionError("a folder was opened as a file: " + f);
    } catch (TrustRefused expected) {
      assertEquals(0, OpenFiles.on(base.resolve("safe")));
    }
  }

  // ------------------------------------------------------------------ not a file, not there

  @Test
  void aFolderAFifoAndASocketAreNotFilesAndNothingWaitsOnThem() throws Exception {
    Path d = folder(base.resolve("d"), "0755");
    assertEquals(
        "config " + d.resolve("sub") + " is a folder, not a regular file (--config c.yaml)",
        refused(folder(d.resolve("sub"), "0755")));
    Path fifo = d.resolve("fifo");
    Process mk = new ProcessBuilder("mkfifo", "-m", "0644", fifo.toString()).inheritIO().start();
    assertTrue(mk.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, mk.exitValue());
    // a read-only open of a FIFO would wait for a writer: the walk opens without blocking
    assertEquals(
        "config " + fifo + " is a FIFO (named pipe), not a regular file (--config c.yaml)",
        refused(fifo));
    Path sock = d.resolve("sock");
    try (var server =
        java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
      server.bind(java.net.UnixDomainSocketAddress.of(sock));
      chmod("0644", sock);
      assertEquals(
          "config " + sock + " is a socket, not a regular file (--config c.yaml)", refused(sock));
    }
    // through a link: named as given, with what it resolved to; no context, no parentheses
    Path link = Files.createSymbolicLink(d.resolve("l"), Path.of("sub"));
    TrustRefused r =
        assertThrows(
            TrustRefused.class,
            () -> TrustedPath.open(link, new TrustedPath.Subject("config", null), ME).close());
    assertEquals(
        "config " + link + " (resolved: " + d.resolve("sub") + ") is a folder, not a regular file",
        r.getMessage());
  }

  @Test
  void aMissingNameIsTheFirstOneMissingAndAFileOnTheWayIsNotAFolder() throws IOException {
    Path lib = base.resolve("nowhere/deeper/lib.so");
    NoSuchFileException e =
        assertThrows(NoSuchFileException.class, () -> TrustedPath.open(lib, CONFIG, ME));
    assertEquals(base.resolve("nowhere").toString(), e.getFile());
    // a dangling link: the missing name is its target
    Path d = folder(base.resolve("d"), "0755");
    Path dangling = Files.createSymbolicLink(d.resolve("l"), Path.of("gone.so"));
    NoSuchFileException e2 =
        assertThrows(NoSuchFileException.class, () -> TrustedPath.open(dangling, CONFIG, ME));
    assertEquals(d.resolve("gone.so").toString(), e2.getFile());
    Path f = file(d.resolve("f"), "x");
    NotDirectoryException nd =
        assertThrows(
            NotDirectoryException.class, () -> TrustedPath.open(f.resolve("lib.so"), CONFIG, ME));
    assertEquals(f.toString(), nd.getFile());
  }

  @Test
  void theBytesReadAreTheFileOpened() throws IOException {
    byte[] bytes = new byte[70_000];
    new java.util.Random(21).nextBytes(bytes);
    Path lib = base.resolve("lib.so");
    Files.write(lib, bytes);
    chmod("0644", lib);
    try (TrustedPath.OpenFile f = TrustedPath.open(lib, CONFIG, ME)) {
      Files.delete(lib); // the path is gone: the descriptor still reads the file
      assertArrayEquals(bytes, f.readAll());
      assertEquals(bytes.length, f.stat().size());
      assertEquals(lib, f.given());
    }
  }
}
