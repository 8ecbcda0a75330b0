package dev.strata.engine.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.trust.TrustRefused;
import dev.strata.testsupport.OpenFiles;
import dev.strata.testsupport.SecondUser;
import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where setup writes a config and what it leaves there, checked with launch's rule
 * (docs/RELIABILITY.md, "Setup writes nothing launch would refuse"): a refused {@code --out}
 * creates no folder; the folders and files it makes pass the rule whatever the umask; a link given
 * as {@code --out} is judged where it lives, as launch would read it; and the ownership record says
 * what setup wrote last, not what it wrote before.
 */
@EnabledOnOs(OS.LINUX)
class ConfigWriterPlaceTest {
  @TempDir Path tmp;
  Path base;

  @BeforeEach
  void base() throws IOException {
    base = tmp.toRealPath();
    Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  static Path folder(Path p, String rwx) throws IOException {
    Files.createDirectories(p);
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(rwx));
    return p;
  }

  /** How a message names this process's user (the owner of what the test made). */
  static String me() {
    int uid = dev.strata.engine.libc.Posix.geteuid();
    return (uid == 0 ? "root" : System.getProperty("user.name")) + " (uid " + uid + ")";
  }

  /** libc's {@code umask(mask)}: the previous mask. */
  @SuppressWarnings("restricted") // a libc downcall, as dev.strata.engine.libc.Posix makes them
  static int umask(int mask) {
    Linker linker = Linker.nativeLinker();
    MethodHandle h =
        linker.downcallHandle(
            linker.defaultLookup().find("umask").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    try {
      return (int) h.invokeExact(mask);
    } catch (Throwable t) {
      throw new IllegalStateException("umask", t);
    }
  }

  @Test
  void anOutUnderAFolderOthersMayWriteIsRefusedBeforeAnyFolderIsMade() throws IOException {
    Path open = folder(base.resolve("open"), "rwxrwxrwx");
    Path cfg = open.resolve("new/sub/engine.yaml");
    TrustRefused r =
        assertThrows(TrustRefused.class, () -> ConfigWriter.write(cfg, bytes("a\n"), false));
    assertEquals(3, r.exitCode());
    assertEquals(
        "folder "
            + open
            + " above the config "
            + cfg
            + " (owner "
            + me()
            + ", mode 0777) is writable by group and others without being a"
            + " sticky root folder: they could redirect or replace what is written (chmod"
            + " go-w "
            + open
            + ", or pass another --out than "
            + cfg
            + ")",
        r.getMessage());
    assertFalse(Files.exists(open.resolve("new")), "a folder was made under a refused place");
  }

  @Test
  void anOutWithDotDotAfterALinkIsCheckedWhereTheKernelWillWrite() throws IOException {
    Path open = folder(base.resolve("open"), "rwxrwxrwx");
    folder(open.resolve("sub"), "rwxr-xr-x");
    Path safe = folder(base.resolve("safe"), "rwxr-xr-x");
    Files.createSymbolicLink(safe.resolve("link"), open.resolve("sub"));
    // safe/link/.. is open/, not safe/ as a textual normalize() would have it
    Path cfg = safe.resolve("link/../engine.yaml");
    TrustRefused r =
        assertThrows(TrustRefused.class, () -> ConfigWriter.write(cfg, bytes("a\n"), false));
    assertEquals(
        "folder "
            + open
            + " of the config "
            + cfg
            + " (owner "
            + me()
            + ", mode 0777) is writable by group and others: they could redirect or replace what is"
            + " written (chmod go-w "
            + open
            + ", or pass another --out than "
            + cfg
            + ")",
        r.getMessage());
    assertFalse(Files.exists(open.resolve("engine.yaml")));
    assertFalse(Files.exists(safe.resolve("engine.yaml")));
  }

  @Test
  void foldersAndFilesSetupMakesPassTheRuleWhateverTheUmask() throws IOException {
    for (int mask : new int[] {0, 0002}) {
      Path cfg = base.resolve("m" + mask + "/strata/engine.yaml");
      int before = umask(mask);
      try {
        ConfigWriter.write(cfg, bytes("a\n"), false);
        ConfigWriter.write(cfg, bytes("b\n"), false); // a replacement: backup and state again
      } finally {
        umask(before);
      }
      assertEquals("rwxr-xr-x", mode(cfg.getParent()), "umask " + mask);
      assertEquals("rwxr-xr-x", mode(cfg.getParent().getParent()), "umask " + mask);
      for (Path f :
          List.of(
              cfg,
              ConfigWriter.backupOf(cfg),
              ConfigWriter.stateOf(cfg),
              ConfigWriter.lockOf(cfg))) {
        assertEquals("rw-r--r--", mode(f), f + " under umask " + mask);
      }
    }
  }

  @Test
  void aReplacedConfigKeepsItsModeLessGroupAndOtherWrite() throws IOException {
    Path cfg = base.resolve("engine.yaml");
    ConfigWriter.write(cfg, bytes("1\n"), false);
    assertEquals("rw-r--r--", mode(cfg));
    Files.setPosixFilePermissions(cfg, PosixFilePermissions.fromString("rw-r-----"));
    ConfigWriter.write(cfg, bytes("2\n"), false);
    assertEquals("rw-r-----", mode(cfg));
    assertEquals("rw-r-----", mode(ConfigWriter.backupOf(cfg)));
  }

  @Test
  void aWriteLeavesNoDescriptorOpenOnTheConfig() throws IOException {
    // the check opens the config there (as launch would): every way out closes it again
    Path cfg = base.resolve("engine.yaml");
    ConfigWriter.write(cfg, bytes("1\n"), false);
    ConfigWriter.write(cfg, bytes("1\n"), false); // unchanged: the same file stays
    ConfigWriter.write(cfg, bytes("2\n"), false); // replaced: the old one is unlinked
    Files.writeString(cfg, "by hand\n");
    assertThrows(
        ConfigWriter.KeptException.class, () -> ConfigWriter.write(cfg, bytes("3\n"), false));
    assertEquals(0, OpenFiles.on(cfg), "a descriptor of the config is still open");
  }

  @Test
  void aConfigPutBackByHandIsNotTakenForTheOneSetupWroteLast() throws IOException {
    Path cfg = base.resolve("engine.yaml");
    ConfigWriter.write(cfg, bytes("first\n"), false);
    ConfigWriter.write(cfg, bytes("second\n"), false);
    // the user copies the first config back over the second: a hand edit, whatever its bytes
    Files.writeString(cfg, "first\n");
    assertFalse(ConfigWriter.inspect(cfg).owned());
    ConfigWriter.KeptException kept =
        assertThrows(
            ConfigWriter.KeptException.class,
            () -> ConfigWriter.write(cfg, bytes("third\n"), false));
    assertEquals(2, kept.exitCode());
    assertEquals("first\n", Files.readString(cfg));
  }

  @Test
  void anOutThroughALinkInAFolderOthersMayWriteIsRefusedAndItsTargetUntouched() throws IOException {
    Path real = base.resolve("dotfiles/engine.yaml");
    ConfigWriter.write(real, bytes("mine\n"), false);
    Path open = folder(base.resolve("open"), "rwxrwxrwx");
    Path link = Files.createSymbolicLink(open.resolve("engine.yaml"), real);
    // whoever may write open/ decides where the link points: launch refuses to read through it
    TrustRefused r =
        assertThrows(TrustRefused.class, () -> ConfigWriter.write(link, bytes("new\n"), true));
    assertTrue(
        r.getMessage().startsWith("folder " + open + " of the config " + link + " (owner "),
        r.getMessage());
    assertTrue(
        r.getMessage()
            .endsWith("(chmod go-w " + open + ", or pass another --out than " + link + ")"));
    assertEquals("mine\n", Files.readString(real));
    assertFalse(Files.exists(ConfigWriter.backupOf(real)));
    // the same link in a folder of the user's: written through, the link kept
    Path safe = folder(base.resolve("safe"), "rwxr-xr-x");
    Path good = Files.createSymbolicLink(safe.resolve("engine.yaml"), real);
    ConfigWriter.write(good, bytes("new\n"), false);
    assertEquals("new\n", Files.readString(real));
    assertTrue(Files.isSymbolicLink(good));
  }

  @Test
  void anOutThroughALinkOfAnotherUserIsRefused() throws Exception {
    try (SecondUser user = SecondUser.create("st21w")) {
      Assumptions.assumeTrue(user != null, SecondUser.WHY_NOT);
      Path real = base.resolve("dotfiles/engine.yaml");
      ConfigWriter.write(real, bytes("mine\n"), false);
      Path safe = folder(base.resolve("safe"), "rwxr-xr-x");
      Path link = user.own(Files.createSymbolicLink(safe.resolve("engine.yaml"), real));
      TrustRefused r =
          assertThrows(TrustRefused.class, () -> ConfigWriter.write(link, bytes("x\n"), true));
      assertTrue(
          r.getMessage()
              .startsWith(
                  "symlink "
                      + link
                      + " on the way to the config "
                      + link
                      + " is owned by "
                      + user.name()
                      + " (uid "),
          r.getMessage());
      assertEquals("mine\n", Files.readString(real));
    }
  }

  @Test
  void anOutLinkToAMissingFileIsNamedAsSuchAndLeavesNothingBehind() throws Exception {
    try (SecondUser user = SecondUser.create("st3l")) {
      Assumptions.assumeTrue(user != null, SecondUser.WHY_NOT);
      // the link is the user's own; where it points is another user's folder, with nothing there
      Path theirs = user.own(folder(base.resolve("att"), "rwxr-xr-x"));
      Path safe = folder(base.resolve("safe"), "rwxr-xr-x");
      Path link = Files.createSymbolicLink(safe.resolve("l2.yaml"), theirs.resolve("nope.yaml"));
      dev.strata.engine.StrataException r =
          assertThrows(
              dev.strata.engine.StrataException.class,
              () -> ConfigWriter.write(link, bytes("x\n"), false));
      assertEquals(2, r.exitCode());
      assertEquals(
          link
              + ": a symlink to "
              + theirs.resolve("nope.yaml")
              + ", which does not exist (pass --out with the file itself, or remove the link)",
          r.getMessage());
      // a refused run writes nothing: no lock, state or temp file beside the link, none there
      try (var s = Files.list(safe)) {
        assertEquals(List.of(link), s.toList());
      }
      try (var s = Files.list(theirs)) {
        assertEquals(0, s.count());
      }
      assertTrue(Files.isSymbolicLink(link));
    }
  }
}
