package dev.strata.engine.trust;

import static dev.strata.engine.trust.TrustedPathWalkTest.CONFIG;
import static dev.strata.engine.trust.TrustedPathWalkTest.file;
import static dev.strata.engine.trust.TrustedPathWalkTest.folder;
import static dev.strata.engine.trust.TrustedPathWalkTest.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.testsupport.SecondUser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another user on the same machine: a real second user (created for the test, removed after it)
 * owns a link, a file or a folder on the way, and each is refused naming that user and the command
 * that fixes it; a uid that names no user is shown as "uid N"; and the rule seen from a launching
 * user who is not root — their own folders pass, root's pass, a sticky folder of theirs is no
 * exception (docs/RELIABILITY.md, "Trusted library").
 */
@EnabledOnOs(OS.LINUX)
class TrustedPathOwnerTest {
  static SecondUser user;

  @TempDir Path tmp;
  Path base;

  @BeforeAll
  static void createUser() throws Exception {
    user = SecondUser.create("st21");
  }

  @AfterAll
  static void removeUser() {
    if (user != null) {
      user.close();
    }
  }

  @BeforeEach
  void base() throws IOException {
    Assumptions.assumeTrue(user != null, SecondUser.WHY_NOT);
    base = folder(tmp.toRealPath(), "0755");
  }

  String them() {
    return user.name() + " (uid " + user.uid() + ")";
  }

  @Test
  void aLinkOwnedByAnotherUserIsRefusedTheyDecideWhereItPoints() throws IOException {
    Path lib = file(base.resolve("safe/lib.so"), "x");
    Path link = user.own(Files.createSymbolicLink(base.resolve("safe/l"), lib));
    assertEquals(0, (int) Files.getAttribute(lib, "unix:uid"), "the link's target stays root's");
    assertEquals(
        "symlink "
            + link
            + " on the way to the config "
            + link
            + " is owned by "
            + them()
            + ", not by root: that user decides where it points (remove it"
            + " and point to the file directly; --config c.yaml)",
        refused(link));
    // in the middle of the path, and owned by a uid with no name
    int nobody = SecondUser.unnamedUid();
    Path dirLink = SecondUser.ownBy(Files.createSymbolicLink(base.resolve("d"), base), nobody);
    Path via = dirLink.resolve("safe/lib.so");
    assertTrue(
        refused(via)
            .startsWith(
                "symlink "
                    + dirLink
                    + " on the way to the config "
                    + via
                    + " is owned by uid "
                    + nobody
                    + ", not by root: "),
        refused(via));
  }

  /**
   * A config directly in the system's sticky root-owned {@code /tmp} (mode 1777): the user's own
   * passes, because another user can neither rename nor remove it there (the kernel's sticky rule,
   * tried here as that user), and what another user put there first — a file, a link to the user's
   * good config — is refused by its own owner. A library there is still refused: what is loaded may
   * look beside itself for a name anyone could create first.
   */
  @Test
  void aConfigInTheStickyTmpPassesAndWhatAnotherUserPutsThereDoesNot() throws Exception {
    Path shared = Path.of("/tmp");
    Assumptions.assumeTrue(
        (Integer) Files.getAttribute(shared, "unix:uid") == 0
            && ((Integer) Files.getAttribute(shared, "unix:mode") & 07777) == 01777,
        "/tmp is not root's 1777 here");
    int me = TrustedPath.me();
    TrustedPath.Subject config = TrustedPath.Subject.readWhole("config", "--config c.yaml");
    Path mine = Files.createTempFile(shared, "strata-trust-mine-", ".yaml");
    Path theirs = shared.resolve(mine.getFileName() + ".theirs");
    Path link = shared.resolve(mine.getFileName() + ".link");
    try {
      TrustedPathWalkTest.chmod("0644", mine);
      Files.writeString(mine, "mine");
      try (TrustedPath.OpenFile f = TrustedPath.open(mine, config, me)) {
        assertEquals("mine", new String(f.readAll(), java.nio.charset.StandardCharsets.UTF_8));
      }
      // the other user cannot take the name: neither move their file over it nor remove it
      user.own(file(theirs, "theirs"));
      assertTrue(asUser("mv", "-f", theirs.toString(), mine.toString()) != 0, "mv over mine");
      assertTrue(asUser("rm", "-f", mine.toString()) != 0, "rm of mine");
      assertEquals("mine", Files.readString(mine));
      // what they put there is refused by its owner, even a link to the good config
      assertTrue(
          refusedAs(theirs, config, me).startsWith("config " + theirs + " (owner " + them()),
          refusedAs(theirs, config, me));
      Files.createSymbolicLink(link, mine);
      SecondUser.ownBy(link, user.uid());
      assertTrue(
          refusedAs(link, config, me).startsWith("symlink " + link + " on the way to the config"),
          refusedAs(link, config, me));
      // a library's folder is held strictly
      assertTrue(
          refusedAs(mine, new TrustedPath.Subject("engine library", null), me)
              .startsWith("folder /tmp of the engine library " + mine + " (owner root (uid 0),"),
          refusedAs(mine, new TrustedPath.Subject("engine library", null), me));
    } finally {
      Files.deleteIfExists(link);
      Files.deleteIfExists(theirs);
      Files.deleteIfExists(mine);
    }
  }

  /** Runs {@code command} as the second user; its exit status. */
  int asUser(String... command) throws Exception {
    java.util.List<String> all =
        new java.util.ArrayList<>(java.util.List.of("runuser", "-u", user.name(), "--"));
    all.addAll(java.util.List.of(command));
    Process p = new ProcessBuilder(all).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
    return p.exitValue();
  }

  static String refusedAs(Path p, TrustedPath.Subject subject, int me) {
    return assertThrows(TrustRefused.class, () -> TrustedPath.open(p, subject, me).close())
        .getMessage();
  }

  @Test
  void aFileOfAnotherUserIsRefusedAndNeverAdoptedByChown() throws IOException {
    Path lib = user.own(file(base.resolve("safe/lib.so"), "x"));
    assertEquals(
        "config "
            + lib
            + " (owner "
            + them()
            + ", mode 0644) is not owned by root: its owner could change"
            + " what runs (copy it to a folder you own, after checking it is the one you"
            + " meant; --config c.yaml)",
        refused(lib));
    int nobody = SecondUser.unnamedUid();
    SecondUser.ownBy(lib, nobody);
    assertTrue(
        refused(lib).startsWith("config " + lib + " (owner uid " + nobody + ", mode 0644) is not"),
        refused(lib));
    // with no context the message ends at the remedy
    TrustRefused bare =
        assertThrows(
            TrustRefused.class,
            () -> TrustedPath.open(lib, new TrustedPath.Subject("config", null), 0).close());
    assertTrue(
        bare.getMessage().endsWith("after checking it is the one you meant)"), bare.getMessage());
  }

  @Test
  void aFolderOfAnotherUserOnTheWayIsRefusedTheyCouldSwapWhatIsInIt() throws IOException {
    Path theirs = user.own(folder(base.resolve("theirs"), "0755"));
    Path lib = file(folder(theirs.resolve("mine"), "0755").resolve("lib.so"), "x");
    assertEquals(
        "folder "
            + theirs
            + " above the config "
            + lib
            + " (owner "
            + them()
            + ", mode 0755) is not owned by root: its owner could change"
            + " what runs (move the config to a folder only root can write; --config c.yaml)",
        refused(lib));
    Path holder = file(theirs.resolve("lib.so"), "x");
    assertTrue(
        refused(holder).startsWith("folder " + theirs + " of the config " + holder + " (owner "),
        refused(holder));
  }

  @Test
  void aUserWhoIsNotRootTrustsTheirOwnFilesAndRootsAndNothingElse() throws IOException {
    int me = user.uid();
    // their folder (0755) and file: passed through, held, opened
    Path home = user.own(folder(base.resolve("home"), "0755"));
    Path lib = user.own(file(folder(home.resolve("lib"), "0755").resolve("lib.so"), "theirs"));
    user.own(lib.getParent());
    try (TrustedPath.OpenFile f = TrustedPath.open(lib, CONFIG, me)) {
      assertEquals(lib, f.real());
    }
    assertEquals(home, TrustedPath.requireFolderAbove(home, CONFIG, me));
    // a file of root's in their folder: root is trusted too
    Path roots = file(home.resolve("lib/root.so"), "root's");
    try (TrustedPath.OpenFile f = TrustedPath.open(roots, CONFIG, me)) {
      assertEquals(roots, f.real());
    }
    // a file of a third user's: refused, the launching user named by uid
    int nobody = SecondUser.unnamedUid();
    Path third = SecondUser.ownBy(file(home.resolve("lib/third.so"), "x"), nobody);
    TrustRefused r =
        assertThrows(TrustRefused.class, () -> TrustedPath.open(third, CONFIG, me).close());
    assertTrue(
        r.getMessage()
            .contains(
                "is not owned by root or by you (uid "
                    + me
                    + "): its owner could change what runs (copy it to a folder you own, after"
                    + " checking it is the one you meant; --config c.yaml)"),
        r.getMessage());
    // their sticky world-writable folder is not /tmp: only root's sticky folders are passed
    Path shared = user.own(folder(home.resolve("shared"), "1777"));
    Path sub = user.own(folder(shared.resolve("sub"), "0755"));
    Path inSub = user.own(file(sub.resolve("lib.so"), "x"));
    TrustRefused sticky =
        assertThrows(TrustRefused.class, () -> TrustedPath.open(inSub, CONFIG, me).close());
    assertTrue(
        sticky
            .getMessage()
            .startsWith(
                "folder "
                    + shared
                    + " above the config "
                    + inSub
                    + " (owner "
                    + them()
                    + ", mode 1777) is writable by group and others without being a sticky root"
                    + " folder: "),
        sticky.getMessage());
    assertThrows(TrustRefused.class, () -> TrustedPath.requireFolderAbove(shared, CONFIG, me));
  }
}
