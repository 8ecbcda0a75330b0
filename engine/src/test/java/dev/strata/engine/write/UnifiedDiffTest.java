package dev.strata.engine.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import com.github.difflib.patch.PatchFailedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class UnifiedDiffTest {

  @Test
  void equalTextsHaveNoDiff() {
    assertEquals("", UnifiedDiff.diff("a", "x\ny\n", "b", "x\ny\n"));
  }

  /** Pinned diffs of {@code a} → {@code b}, as diff -u prints them. */
  @ParameterizedTest(name = "{0}")
  @MethodSource
  void pinnedDiffs(String what, String a, String b, String diff) {
    assertEquals(diff, UnifiedDiff.diff("a", a, "b", b));
  }

  static Stream<Arguments> pinnedDiffs() {
    return Stream.of(
        arguments(
            "one changed line with 3 lines of context",
            "1\n2\n3\n4\n5\n6\n7\n8\n",
            "1\n2\n3\n4\nFIVE\n6\n7\n8\n",
            "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n"),
        arguments(
            "an appended pair at the end",
            "args:\n- --ctx\n- '8192'\n",
            "args:\n- --ctx\n- '8192'\n- --kv\n- q4_0\n",
            "--- a\n+++ b\n@@ -1,3 +1,5 @@\n args:\n - --ctx\n - '8192'\n+- --kv\n+- q4_0\n"),
        arguments(
            "a changed line shows the removal before the addition",
            "x\ny\nz\n",
            "x\nY\nz\n",
            "--- a\n+++ b\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n"));
  }

  /** Applying the diff to the old text gives the new text, over random edits. */
  @Test
  void patchRoundTripsOverRandomEdits() throws PatchFailedException {
    Random rnd = new Random(42);
    for (int round = 0; round < 300; round++) {
      List<String> a = randomLines(rnd);
      List<String> b = edit(rnd, a);
      String d = UnifiedDiff.diff("a", join(a), "b", join(b));
      if (a.equals(b)) {
        assertEquals("", d);
        continue;
      }
      List<String> patched =
          DiffUtils.patch(a, UnifiedDiffUtils.parseUnifiedDiff(UnifiedDiff.lines(d)));
      assertEquals(b, patched, "round " + round + "\n" + d);
    }
  }

  /** The system's {@code patch} (GNU) applies our diffs: the format is diff -u's. */
  @Test
  void theSystemPatchToolAppliesIt(@TempDir Path dir) throws IOException, InterruptedException {
    Path patchBin = Path.of("/usr/bin/patch");
    Assumptions.assumeTrue(Files.isExecutable(patchBin), "no /usr/bin/patch here");
    Random rnd = new Random(7);
    for (int round = 0; round < 20; round++) {
      List<String> a = randomLines(rnd);
      List<String> b = edit(rnd, a);
      Path f = dir.resolve("f" + round);
      Files.writeString(f, join(a));
      Files.writeString(dir.resolve("d"), UnifiedDiff.diff("f", join(a), "f", join(b)));
      Process p =
          new ProcessBuilder(patchBin.toString(), "-s", f.toString(), dir.resolve("d").toString())
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, p.waitFor(), out);
      assertEquals(join(b), Files.readString(f), "round " + round);
    }
  }

  private static List<String> randomLines(Random rnd) {
    List<String> a = new ArrayList<>();
    int n = rnd.nextInt(30);
    for (int i = 0; i < n; i++) {
      a.add("l" + rnd.nextInt(8));
    }
    return a;
  }

  private static List<String> edit(Random rnd, List<String> a) {
    List<String> b = new ArrayList<>(a);
    int edits = rnd.nextInt(6);
    for (int e = 0; e < edits; e++) {
      int kind = rnd.nextInt(3);
      if (kind == 0 || b.isEmpty()) {
        b.add(rnd.nextInt(b.size() + 1), "n" + rnd.nextInt(5));
      } else if (kind == 1) {
        b.remove(rnd.nextInt(b.size()));
      } else {
        b.set(rnd.nextInt(b.size()), "c" + rnd.nextInt(5));
      }
    }
    return b;
  }

  private static String join(List<String> l) {
    StringBuilder sb = new StringBuilder();
    for (String s : l) {
      sb.append(s).append('\n');
    }
    return sb.toString();
  }
}
