package dev.strata.engine.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.model.DemoModel;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.GgufValue;
import dev.strata.engine.model.GgufWriter;
import dev.strata.testsupport.CanaryFolder;
import dev.strata.testsupport.SecondUser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Where files are written (docs/RELIABILITY.md, "Where files are written"), with a real second user
 * as the attacker: a folder that user owns, or may write, is refused before anything is written,
 * with one line naming the folder, its owner and mode and the remedy (never a chmod of a shared
 * sticky folder, never a chown of the other user's); a symlink planted at a {@code .partial} name
 * is never written through, even in a folder that passes; a stale {@code .partial} of the user's
 * own is replaced, anything else at that name left alone.
 */
@EnabledOnOs(OS.LINUX)
class OutputPlaceTest extends CanaryFolder {
  @RegisterExtension static final SecondUser.PerClass ATT = new SecondUser.PerClass("st3w");

  // ATT makes its user before the first test and JUnit makes an instance per test after that
  final SecondUser att = ATT.user();

  static Path folder(Path p, String rwx) throws IOException {
    Files.createDirectories(p);
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(rwx));
    return p;
  }

  /** A folder of mode 1777, like /tmp (PosixFilePermission has no sticky bit). */
  static Path sticky(Path p) throws IOException {
    Files.createDirectories(p);
    Files.setAttribute(p, "unix:mode", 01777);
    return p;
  }

  static final String SHARD1 = "strata-demo-00001-of-00004.gguf";

  static SequencedMap<String, GgufValue> meta() {
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("general.name", GgufValue.string("t"));
    return m;
  }

  static List<String> listing(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  void canaryUntouched() throws IOException {
    assertEquals("canary\n", Files.readString(canary));
    assertEquals(7, Files.size(canary));
  }

  @Test
  void theAttackOfTheReportIsRefusedBeforeAnythingIsWritten() throws Exception {
    Assumptions.assumeTrue(att != null, SecondUser.WHY_NOT);
    // echo canary > /root/canary; su att -c 'mkdir a/dm; ln -s /root/canary a/dm/…partial'
    Path a = att.own(folder(base.resolve("a"), "rwxr-xr-x"));
    Path dm = att.own(folder(a.resolve("dm"), "rwxr-xr-x"));
    att.own(Files.createSymbolicLink(dm.resolve(SHARD1 + ".partial"), canary));
    TrustRefused r =
        assertThrows(TrustRefused.class, () -> DemoModel.write(dm, 4, false, "--out " + dm));
    assertEquals(3, r.exitCode());
    assertEquals(
        "folder "
            + dm
            + " of the demo model "
            + dm.resolve(SHARD1)
            + " (owner "
            + att.name()
            + " (uid "
            + att.uid()
            + "), mode 0755) is not owned by root: its owner could redirect or replace what is"
            + " written (write the demo model in a folder only root can write: pass another --out than "
            + dm
            + ")",
        r.getMessage());
    canaryUntouched();
    assertEquals(List.of(SHARD1 + ".partial"), listing(dm));
  }

  @Test
  void aStickyFolderOfTheOtherUserIsRefusedAndNoChownOfItIsSuggested() throws Exception {
    Assumptions.assumeTrue(att != null, SecondUser.WHY_NOT);
    Path shared = att.own(sticky(base.resolve("shared")));
    Path dm = shared.resolve("dm"); // not there yet: the folder above decides
    TrustRefused r =
        assertThrows(TrustRefused.class, () -> DemoModel.write(dm, 1, false, "--out " + dm));
    assertTrue(
        r.getMessage().startsWith("folder " + shared + " above the demo model "), r.getMessage());
    assertTrue(r.getMessage().contains("(owner " + att.name() + " (uid "), r.getMessage());
    assertTrue(r.getMessage().contains("mode 1777"), r.getMessage());
    assertFalse(r.getMessage().contains("chown"), r.getMessage());
    assertFalse(r.getMessage().contains("chmod"), r.getMessage());
    assertEquals(List.of(), listing(shared), "a folder was made in a refused place");
  }

  @Test
  void aStickyRootFolderMayBePassedThroughButNeverHoldTheShards() throws IOException {
    // like /tmp: root-owned, 1777 (the tests run as root; as another user it is refused too)
    Path shared = sticky(base.resolve("tmp"));
    TrustRefused r =
        assertThrows(
            TrustRefused.class, () -> DemoModel.write(shared, 1, false, "--out " + shared));
    Path shard = shared.resolve("strata-demo-00001-of-00001.gguf");
    assertTrue(
        r.getMessage()
            .startsWith(
                "folder "
                    + shared
                    + " of the demo model "
                    + shard
                    + " (owner root (uid 0), mode 1777) is writable by group and others: they could"
                    + " redirect or replace what is written (write the demo model in a folder only"
                    + " root can write: pass another --out than "),
        r.getMessage());
    assertFalse(r.getMessage().contains("chmod"), r.getMessage());
    assertEquals(List.of(), listing(shared));
    // a new folder inside it is the user's own: written there
    List<Path> written = DemoModel.write(shared.resolve("mine"), 1, false, "--out x");
    assertEquals("rwxr-xr-x", mode(shared.resolve("mine")));
    assertEquals(1, GgufReader.readModel(written.getFirst()).shards().size());
  }

  @Test
  void aLinkPlantedAtAPartialNameIsNeverWrittenThroughEvenInAFolderThatPasses() throws IOException {
    Path dm = folder(base.resolve("dm"), "rwxr-xr-x");
    Path partial = Files.createSymbolicLink(dm.resolve(SHARD1 + ".partial"), canary);
    TrustRefused r = assertThrows(TrustRefused.class, () -> DemoModel.write(dm, 4));
    assertEquals(3, r.exitCode());
    assertEquals(
        partial
            + " is a symlink (to "
            + canary
            + ") owned by root (uid 0), mode 0777, in the way of the demo model: it is not a"
            + " leftover of this command, so it is neither followed nor replaced (look at what"
            + " it is, then remove it yourself, or pass another --out than "
            + dm
            + ")",
        r.getMessage());
    canaryUntouched();
    assertTrue(Files.isSymbolicLink(partial), "the planted link was removed");
    // a dangling one, pointing where a new file would be made, is no better
    Files.delete(partial);
    Path nowhere = base.resolve("created-through-a-link");
    Files.createSymbolicLink(partial, nowhere);
    assertThrows(TrustRefused.class, () -> DemoModel.write(dm, 4));
    assertFalse(Files.exists(nowhere, java.nio.file.LinkOption.NOFOLLOW_LINKS));
  }

  @Test
  void aStalePartialOfTheUsersOwnIsReplacedAnythingElseIsLeftAlone() throws Exception {
    Path dir = folder(base.resolve("w"), "rwxr-xr-x");
    Path file = dir.resolve("m.gguf");
    Path partial = dir.resolve("m.gguf.partial");
    Files.writeString(partial, "left by a crash");
    GgufWriter.write(file, meta(), List.of());
    assertFalse(Files.exists(partial));
    assertEquals("rw-r--r--", mode(file));
    assertEquals("t", GgufReader.readFile(file).string("general.name"));

    Files.createDirectory(partial);
    TrustRefused folderThere =
        assertThrows(TrustRefused.class, () -> GgufWriter.write(file, meta(), List.of()));
    assertTrue(folderThere.getMessage().startsWith(partial + " is a folder owned by root"));
    assertTrue(Files.isDirectory(partial));
    Files.delete(partial);

    Assumptions.assumeTrue(att != null, SecondUser.WHY_NOT);
    Files.writeString(partial, "theirs");
    att.own(partial);
    TrustRefused theirs =
        assertThrows(TrustRefused.class, () -> GgufWriter.write(file, meta(), List.of()));
    assertTrue(
        theirs.getMessage().startsWith(partial + " is a file owned by " + att.name() + " (uid "),
        theirs.getMessage());
    assertEquals("theirs", Files.readString(partial), "another user's file was changed");
  }

  @Test
  void aLinkAtTheFinalNameIsReplacedByTheRenameNotWrittenThrough() throws IOException {
    // the rename replaces a link at the final name (rename(2) never follows one)
    Path dir = folder(base.resolve("r"), "rwxr-xr-x");
    Path file = dir.resolve("m.gguf");
    Files.createSymbolicLink(file, canary);
    GgufWriter.write(file, meta(), List.of());
    assertFalse(Files.isSymbolicLink(file));
    canaryUntouched();
  }

  static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }
}
