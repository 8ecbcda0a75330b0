package dev.strata.engine.write;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import com.github.difflib.patch.Patch;
import java.util.ArrayList;
import java.util.List;

/**
 * The unified diff ({@code diff -u} format) the toolkit shows before it replaces a config, made by
 * java-diff-utils (Myers' algorithm; a kept library instead of our own). Ranges are always written
 * {@code start,count} ({@code @@ -5,1 +5,1 @@} where GNU diff writes {@code @@ -5 +5 @@}); both are
 * the unified format {@code patch} reads.
 */
public final class UnifiedDiff {
  /** Lines of context around each change, as {@code diff -u}. */
  public static final int CONTEXT = 3;

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
    Patch<String> patch = DiffUtils.diff(a, lines(newText));
    StringBuilder out = new StringBuilder();
    for (String l : UnifiedDiffUtils.generateUnifiedDiff(oldName, newName, a, patch, CONTEXT)) {
      out.append(l).append('\n');
    }
    return out.toString();
  }

  /** Lines without their terminators ({@code \n} only); a final newline adds no empty line. */
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
