package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.tests.dist.Cli;
import dev.strata.testsupport.CanaryFolder;
import dev.strata.testsupport.SecondUser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The commands that write files, run by root into places another (real) user controls
 * (docs/RELIABILITY.md, "Where files are written"): {@code strata-setup demo-model --out} and
 * {@code strata-launch demo --dir} refuse with exit 3 and one line before anything is written, and
 * a root-owned file that user points a link at is never overwritten.
 */
@EnabledOnOs(OS.LINUX)
class WritePlaceE2eTest extends CanaryFolder {
  @RegisterExtension static final SecondUser.PerClass ATT = new SecondUser.PerClass("st3e");

  // ATT makes its user before the first test and JUnit makes an instance per test after that
  final SecondUser att = ATT.user();

  @BeforeEach
  void needsTheSecondUser() {
    Assumptions.assumeTrue(att != null, SecondUser.WHY_NOT);
  }

  Path attFolder(String name, int mode) throws IOException {
    Path p = Files.createDirectories(base.resolve(name));
    Files.setAttribute(p, "unix:mode", mode);
    return att.own(p);
  }

  static List<String> tree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.map(p -> dir.relativize(p).toString()).sorted().toList();
    }
  }

  Map<String, String> env() {
    return Map.of("HOME", base.resolve("home").toString());
  }

  static void oneRefusal(Cli.Result r, String command, String folder) {
    assertEquals(3, r.code(), r.out() + r.err());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().startsWith(command + ": folder " + folder + " "), r.err());
    assertTrue(r.err().contains("in a folder only root can write"), r.err());
    assertFalse(r.err().contains("chown"), r.err());
  }

  @Test
  void demoModelIntoTheOtherUsersFolderWithALinkPlantedIsRefusedAndRootsFileKept()
      throws IOException {
    Path dm = attFolder("a/dm", 0755);
    att.own(
        Files.createSymbolicLink(dm.resolve("strata-demo-00001-of-00004.gguf.partial"), canary));
    Cli.Result r = Cli.setup(env(), false, "demo-model", "--out", dm.toString());
    oneRefusal(r, "strata-setup", dm.toString());
    assertTrue(r.err().contains("(owner " + att.name() + " (uid "), r.err());
    assertEquals("canary\n", Files.readString(canary));
    assertEquals(List.of("", "strata-demo-00001-of-00004.gguf.partial"), tree(dm));
  }

  @Test
  void demoModelIntoAStickyFolderTheOtherUserOwnsIsRefused() throws IOException {
    Path shared = attFolder("shared", 01777);
    Cli.Result r = Cli.setup(env(), false, "demo-model", "--out", shared.resolve("dm").toString());
    oneRefusal(r, "strata-setup", shared.toString());
    assertTrue(r.err().contains("mode 1777"), r.err());
    assertEquals(List.of(""), tree(shared));
  }

  @Test
  void theDemoIntoTheOtherUsersFolderIsRefusedBeforeTheModelIsWritten() throws IOException {
    E2e.refLibrary(); // built: the demo finds strata-ref before it looks at the folder
    Path dd = attFolder("dd", 0755);
    Cli.Result r = Cli.launch(env(), "demo", "--dir", dd.toString());
    oneRefusal(r, "strata-launch", dd.toString());
    assertTrue(r.err().endsWith(": pass another --dir than " + dd + ")\n"), r.err());
    assertEquals(List.of(""), tree(dd));
    Path shared = attFolder("shared", 01777);
    Cli.Result s = Cli.launch(env(), "demo", "--dir", shared.resolve("dd").toString());
    oneRefusal(s, "strata-launch", shared.toString());
    assertEquals(List.of(""), tree(shared));
  }

  @Test
  void aDemoConfigThatIsTheOtherUsersLinkIsRefusedNotKeptAsYours() throws IOException {
    E2e.refLibrary();
    Path dd = Files.createDirectories(base.resolve("dd"));
    Path theirs = attFolder("theirs", 0755);
    Path target = att.own(Files.writeString(theirs.resolve("engine.yaml"), "schema: x\n"));
    att.own(Files.createSymbolicLink(dd.resolve("engine.yaml"), target));
    Cli.Result r = Cli.launch(env(), "demo", "--dir", dd.toString());
    assertEquals(3, r.code(), r.out() + r.err());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(
        r.err()
            .startsWith(
                "strata-launch: symlink "
                    + dd.resolve("engine.yaml")
                    + " on the way to the config "
                    + dd.resolve("engine.yaml")
                    + " is owned by "
                    + att.name()),
        r.err());
    assertFalse(r.out().contains("kept"), r.out());
    assertEquals(List.of("", "engine.yaml"), tree(dd), "the model was written first");
    assertEquals("schema: x\n", Files.readString(target));
  }
}
