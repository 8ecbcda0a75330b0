package dev.strata.engine.write;

import java.util.ArrayList;
import java.util.List;

/**
 * A small unified diff (the {@code diff -u} format) over lines, from a longest-common-subsequence
 * table. Configs are a few dozen lines, so the quadratic table is cheap; past {@link #MAX_CELLS}
 * the diff falls back to "every old line removed, every new line added", which is still a correct
 * diff, only not a minimal one.
 */
public final class UnifiedDiff {
  /** Lines of context around each change, as {@code diff -u}. */
  public static final int CONTEXT = 3;

  /** Largest LCS table (old lines × new lines) computed before falling back. */
  static final long MAX_CELLS = 4_000_000L;

  private UnifiedDiff() {}

  /**
   * The unified diff of two texts, or the empty string when they are equal.
   *
   * @param oldName label of the old side (the {@code ---} line)
   * @param newName label of the new side (the {@code +++} line)
   */
  public static String diff(String oldName, String oldText, String newName, String newText) {
    if (oldText.equals(newText)) {
      return "";
    }
    List<String> a = lines(oldText);
    List<String> b = lines(newText);
    List<Op> ops = script(a, b);
    StringBuilder out = new StringBuilder();
    out.append("--- ").append(oldName).append('\n');
    out.append("+++ ").append(newName).append('\n');
    int i = 0;
    while (i < ops.size()) {
      if (ops.get(i).kind == ' ') {
        i++;
        continue;
      }
      // A hunk: from CONTEXT lines before this change to CONTEXT lines after the last change
      // that is no more than 2*CONTEXT equal lines away.
      int start = Math.max(0, i - CONTEXT);
      int end = i;
      int last = i;
      while (end < ops.size()) {
        if (ops.get(end).kind != ' ') {
          last = end;
        } else if (end - last > 2 * CONTEXT) {
          break;
        }
        end++;
      }
      end = Math.min(ops.size(), last + 1 + CONTEXT);
      appendHunk(out, ops.subList(start, end));
      i = end;
    }
    return out.toString();
  }

  private static void appendHunk(StringBuilder out, List<Op> hunk) {
    int oldCount = 0;
    int newCount = 0;
    for (Op op : hunk) {
      if (op.kind != '+') {
        oldCount++;
      }
      if (op.kind != '-') {
        newCount++;
      }
    }
    Op first = hunk.get(0);
    int oldStart = first.oldLine;
    int newStart = first.newLine;
    // diff -u numbers an empty side by the line before it
    out.append("@@ -")
        .append(range(oldCount == 0 ? oldStart : oldStart + 1, oldCount))
        .append(" +")
        .append(range(newCount == 0 ? newStart : newStart + 1, newCount))
        .append(" @@\n");
    for (Op op : hunk) {
      out.append(op.kind).append(op.text).append('\n');
    }
  }

  private static String range(int start, int count) {
    return count == 1 ? Integer.toString(start) : start + "," + count;
  }

  /**
   * One line of the edit script: kind ' ', '-' or '+', with the 0-based positions in the old and
   * new texts at which it sits.
   */
  private record Op(char kind, String text, int oldLine, int newLine) {}

  private static List<Op> script(List<String> a, List<String> b) {
    int n = a.size();
    int m = b.size();
    List<Op> ops = new ArrayList<>();
    // Common prefix and suffix never need the table: most config edits touch a few lines.
    int pre = 0;
    while (pre < n && pre < m && a.get(pre).equals(b.get(pre))) {
      pre++;
    }
    int suf = 0;
    while (suf < n - pre && suf < m - pre && a.get(n - 1 - suf).equals(b.get(m - 1 - suf))) {
      suf++;
    }
    for (int k = 0; k < pre; k++) {
      ops.add(new Op(' ', a.get(k), k, k));
    }
    int an = n - pre - suf;
    int bn = m - pre - suf;
    if ((long) an * bn > MAX_CELLS) {
      for (int k = 0; k < an; k++) {
        ops.add(new Op('-', a.get(pre + k), pre + k, pre));
      }
      for (int k = 0; k < bn; k++) {
        ops.add(new Op('+', b.get(pre + k), pre + an, pre + k));
      }
    } else {
      // lcs[i][j] = LCS length of a[pre+i..] and b[pre+j..]
      int[][] lcs = new int[an + 1][bn + 1];
      for (int i = an - 1; i >= 0; i--) {
        for (int j = bn - 1; j >= 0; j--) {
          lcs[i][j] =
              a.get(pre + i).equals(b.get(pre + j))
                  ? lcs[i + 1][j + 1] + 1
                  : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
        }
      }
      int i = 0;
      int j = 0;
      while (i < an || j < bn) {
        if (i < an && j < bn && a.get(pre + i).equals(b.get(pre + j))) {
          ops.add(new Op(' ', a.get(pre + i), pre + i, pre + j));
          i++;
          j++;
        } else if (j < bn && (i == an || lcs[i][j + 1] >= lcs[i + 1][j])) {
          ops.add(new Op('+', b.get(pre + j), pre + i, pre + j));
          j++;
        } else {
          ops.add(new Op('-', a.get(pre + i), pre + i, pre + j));
          i++;
        }
      }
      // Removals read better before the additions they pair with: reorder each run of changes.
      reorderRuns(ops, pre);
    }
    for (int k = 0; k < suf; k++) {
      ops.add(new Op(' ', a.get(n - suf + k), n - suf + k, m - suf + k));
    }
    return ops;
  }

  /** Within each maximal run of non-context ops starting at or after {@code from}: '-' first. */
  private static void reorderRuns(List<Op> ops, int from) {
    int k = Math.max(0, from);
    while (k < ops.size()) {
      if (ops.get(k).kind == ' ') {
        k++;
        continue;
      }
      int s = k;
      while (k < ops.size() && ops.get(k).kind != ' ') {
        k++;
      }
      List<Op> run = new ArrayList<>(ops.subList(s, k));
      int oldAt = run.get(0).oldLine;
      int newAt = run.get(0).newLine;
      int w = s;
      for (Op op : run) {
        if (op.kind == '-') {
          ops.set(w++, new Op('-', op.text, op.oldLine, newAt));
        }
      }
      int oldEnd = oldAt;
      for (Op op : run) {
        if (op.kind == '-') {
          oldEnd = op.oldLine + 1;
        }
      }
      for (Op op : run) {
        if (op.kind == '+') {
          ops.set(w++, new Op('+', op.text, oldEnd, op.newLine));
        }
      }
    }
  }

  /** Lines without their terminators; a final newline does not make an extra empty line. */
  static List<String> lines(String text) {
    List<String> out = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        out.add(text.substring(start, i));
        start = i + 1;
      }
    }
    if (start < text.length()) {
      out.add(text.substring(start));
    }
    return out;
  }
}
