package dev.strata.tests.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.testsupport.GoldenFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/** The golden helper: compare, update, the diff and the {@code .actual} left beside the golden. */
class GoldenFilesTest {
  @TempDir Path dir;

  @Test
  void aMatchPassesAndRemovesAStaleActual() throws IOException {
    write("config/a.yaml", "x: 1\n");
    write("config/a.yaml.actual", "x: 2\n");
    GoldenFiles g = new GoldenFiles(dir, false);
    assertInstanceOf(GoldenFiles.Match.class, g.compare("config/a.yaml", "x: 1\n"));
    assertFalse(Files.exists(dir.resolve("config/a.yaml.actual")));
    g.check("config/a.yaml", "x: 1\n");
  }

  @Test
  void aMismatchLeavesTheActualAndFailsWithAUnifiedDiff() throws IOException {
    write("config/a.yaml", "a: 1\nb: 2\nc: 3\n");
    GoldenFiles g = new GoldenFiles(dir, false);
    var m =
        assertInstanceOf(
            GoldenFiles.Mismatch.class, g.compare("config/a.yaml", "a: 1\nb: 9\nc: 3\n"));
    assertEquals(
        "--- golden/config/a.yaml\n+++ actual/config/a.yaml\n@@ -1,3 +1,3 @@\n a: 1\n-b: 2\n+b: 9\n c: 3\n",
        m.diff());
    assertEquals(dir.resolve("config/a.yaml.actual"), m.actualFile());
    assertEquals("a: 1\nb: 9\nc: 3\n", Files.readString(m.actualFile(), StandardCharsets.UTF_8));
    assertEquals("a: 1\nb: 2\nc: 3\n", read("config/a.yaml"), "the golden is never touched");
    AssertionFailedError e =
        assertThrows(
            AssertionFailedError.class, () -> g.check("config/a.yaml", "a: 1\nb: 9\nc: 3\n"));
    assertTrue(e.getMessage().contains("-Dgolden.update=true"), e.getMessage());
    assertTrue(e.getMessage().contains("-b: 2\n+b: 9\n"), e.getMessage());
  }

  @Test
  void aSingleByteDifferenceIsAMismatch() throws IOException {
    write("t.txt", "line\n");
    GoldenFiles g = new GoldenFiles(dir, false);
    assertInstanceOf(GoldenFiles.Mismatch.class, g.compare("t.txt", "line"));
    assertInstanceOf(GoldenFiles.Mismatch.class, g.compare("t.txt", "line \n"));
  }

  @Test
  void aMissingGoldenFailsUnlessUpdating() throws IOException {
    GoldenFiles g = new GoldenFiles(dir, false);
    var m = assertInstanceOf(GoldenFiles.Mismatch.class, g.compare("plan/new.txt", "hello\n"));
    assertTrue(m.diff().contains("+hello"), m.diff());
    AssertionFailedError e =
        assertThrows(AssertionFailedError.class, () -> g.check("plan/new.txt", "hello\n"));
    assertTrue(e.getMessage().contains("is missing"), e.getMessage());

    GoldenFiles u = new GoldenFiles(dir, true);
    assertInstanceOf(GoldenFiles.Written.class, u.compare("plan/new.txt", "hello\n"));
    assertEquals("hello\n", read("plan/new.txt"));
    assertFalse(Files.exists(dir.resolve("plan/new.txt.actual")));
    assertInstanceOf(GoldenFiles.Match.class, g.compare("plan/new.txt", "hello\n"));
  }

  @Test
  void updatingRewritesAChangedGoldenAndRemovesStaleOnes() throws IOException {
    write("config/a.yaml", "old\n");
    write("config/gone.yaml", "x\n");
    write("config/a.yaml.actual", "junk\n");
    GoldenFiles u = new GoldenFiles(dir, true);
    assertInstanceOf(GoldenFiles.Written.class, u.compare("config/a.yaml", "new\n"));
    assertEquals("new\n", read("config/a.yaml"));
    assertEquals(List.of("config/a.yaml", "config/gone.yaml"), u.list("config"));
    assertTrue(u.removeStale("config/gone.yaml"));
    assertFalse(new GoldenFiles(dir, false).removeStale("config/a.yaml"), "only when updating");
    assertEquals(List.of("config/a.yaml"), u.list("config"));
  }

  @Test
  void theProjectFolderIsUnderTheRepositoryRoot() {
    Path p = GoldenFiles.projectFolder();
    assertTrue(p.endsWith(Path.of("tests", "src", "test", "resources", "golden")), p.toString());
    assertTrue(Files.isDirectory(p.getParent()), p + " is not inside a checkout");
  }

  private void write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text, StandardCharsets.UTF_8);
  }

  private String read(String name) throws IOException {
    return Files.readString(dir.resolve(name), StandardCharsets.UTF_8);
  }
}
