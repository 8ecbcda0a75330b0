package dev.strata.engine.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UnifiedDiffTest {

  @Test
  void equalTextsHaveNoDiff() {
    assertEquals("", UnifiedDiff.diff("a", "x\ny\n", "b", "x\ny\n"));
  }

  @Test
  void oneChangedLineWithContext() {
    String a = "1\n2\n3\n4\n5\n6\n7\n8\n";
    String b = "1\n2\n3\n4\nFIVE\n6\n7\n8\n";
    assertEquals(
        "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n",
        UnifiedDiff.diff("a", a, "b", b));
  }

  @Test
  void appendedPairAtTheEnd() {
    String a = "args:\n- --ctx\n- '8192'\n";
    String b = "args:\n- --ctx\n- '8192'\n- --kv\n- q4_0\n";
    assertEquals(
        "--- a\n+++ b\n@@ -1,3 +1,5 @@\n args:\n - --ctx\n - '8192'\n+- --kv\n+- q4_0\n",
        UnifiedDiff.diff("a", a, "b", b));
  }

  @Test
  void fromNothing() {
    assertEquals(
        "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n", UnifiedDiff.diff("a", "", "b", "x\ny\n"));
  }

  /** Applying the hunks to the old text gives the new text, over random edits. */
  @Test
  void patchRoundTripsOverRandomEdits() {
    Random rnd = new Random(42);
    for (int round = 0; round < 300; round++) {
      List<String> a = new ArrayList<>();
      int n = rnd.nextInt(30);
      for (int i = 0; i < n; i++) {
        a.add("l" + rnd.nextInt(8));
      }
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
      String at = join(a);
      String bt = join(b);
      String d = UnifiedDiff.diff("a", at, "b", bt);
      assertEquals(bt, apply(at, d), "round " + round + "\n" + d);
    }
  }

  /** Same hunks as diff -u where the system has it (both minimal: counts must agree). */
  @Test
  void agreesWithSystemDiffOnChangedLineCounts(@TempDir Path dir)
      throws IOException, InterruptedException {
    Path diffBin = Path.of("/usr/bin/diff");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(diffBin));
    String a = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";
    String b = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\nn\n";
    Files.writeString(dir.resolve("a"), a);
    Files.writeString(dir.resolve("b"), b);
    Process p =
        new ProcessBuilder(diffBin.toString(), "-u", "a", "b")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .start();
    String sys = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    String ours = UnifiedDiff.diff("a", a, "b", b);
    // drop the --- / +++ lines (system diff adds timestamps)
    assertEquals(body(sys), body(ours));
    assertTrue(ours.contains("@@"));
  }

  private static String body(String diff) {
    StringBuilder sb = new StringBuilder();
    for (String l : UnifiedDiff.lines(diff)) {
      if (!l.startsWith("--- ") && !l.startsWith("+++ ")) {
        sb.append(l).append('\n');
      }
    }
    return sb.toString();
  }

  private static String join(List<String> l) {
    StringBuilder sb = new StringBuilder();
    for (String s : l) {
      sb.append(s).append('\n');
    }
    return sb.toString();
  }

  /** A minimal patch applier: enough to check hunks are right. */
  private static String apply(String old, String diff) {
    List<String> a = UnifiedDiff.lines(old);
    List<String> out = new ArrayList<>();
    int pos = 0;
    for (String l : UnifiedDiff.lines(diff)) {
      if (l.startsWith("--- ") || l.startsWith("+++ ")) {
        continue;
      }
      if (l.startsWith("@@")) {
        String oldRange = l.split(" ")[1].substring(1);
        String[] parts = oldRange.split(",");
        int start = Integer.parseInt(parts[0]);
        int count = parts.length > 1 ? Integer.parseInt(parts[1]) : 1;
        int from = count == 0 ? start : start - 1;
        while (pos < from) {
          out.add(a.get(pos++));
        }
        continue;
      }
      char k = l.charAt(0);
      String text = l.substring(1);
      if (k == ' ') {
        assertEquals(a.get(pos), text);
        out.add(a.get(pos++));
      } else if (k == '-') {
        assertEquals(a.get(pos), text);
        pos++;
      } else {
        out.add(text);
      }
    }
    while (pos < a.size()) {
      out.add(a.get(pos++));
    }
    return join(out);
  }
}
