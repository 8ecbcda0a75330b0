package dev.strata.engine.text;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Word wrapping for terminal output: lines longer than the width break at spaces, continuation
 * lines indented like the line's own text (its leading spaces, plus the width of a {@code "N) "} or
 * {@code "- "} list marker). SGR colour sequences count as zero columns; a word longer than the
 * room left stays whole on its own line (a path is never split).
 */
public final class Wrap {
  /** The width used when a terminal reports none (0 columns): JLine's dumb terminals, pipes. */
  public static final int FALLBACK_WIDTH = 80;

  /** Below this a terminal is too narrow to wrap usefully: lines are left as they are. */
  static final int MIN_WIDTH = 20;

  private static final Pattern SGR = Pattern.compile("\u001b\\[[0-9;]*m");
  private static final Pattern MARKER = Pattern.compile("^( *)(\\d+\\) |- )?");

  private Wrap() {}

  /** The width to wrap at for a terminal reporting {@code columns}: the fallback for 0 or less. */
  public static int width(int columns) {
    return columns > 0 ? columns : FALLBACK_WIDTH;
  }

  /** Visible columns of a line: its length without colour sequences. */
  public static int visible(String s) {
    return SGR.matcher(s).replaceAll("").length();
  }

  /** One line wrapped to {@code width} columns (at least one line; never splits a word). */
  public static List<String> line(String line, int width) {
    List<String> out = new ArrayList<>();
    if (width < MIN_WIDTH || visible(line) <= width) {
      out.add(line);
      return out;
    }
    var m = MARKER.matcher(SGR.matcher(line).replaceAll(""));
    int indent = m.find() ? m.end() : 0;
    if (indent > width / 2) {
      indent = 4;
    }
    String pad = " ".repeat(indent);
    StringBuilder cur = new StringBuilder();
    int curLen = 0;
    int start = 0;
    // keep the leading spaces (and marker) with the first word
    while (start < line.length() && line.charAt(start) == ' ') {
      cur.append(' ');
      curLen++;
      start++;
    }
    boolean first = true;
    for (String word : line.substring(start).split(" ", -1)) {
      int w = visible(word);
      if (!first && curLen + 1 + w > width && curLen > indent) {
        out.add(cur.toString().stripTrailing());
        cur.setLength(0);
        cur.append(pad);
        curLen = indent;
        first = true;
      }
      if (!first) {
        cur.append(' ');
        curLen++;
      }
      cur.append(word);
      curLen += w;
      first = false;
    }
    out.add(cur.toString().stripTrailing());
    return out;
  }

  /** Every line of a text (split at newlines) wrapped, joined with newlines. */
  public static String text(String text, int width) {
    StringBuilder b = new StringBuilder();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      if (i == lines.length - 1 && lines[i].isEmpty()) {
        break;
      }
      for (String l : line(lines[i], width)) {
        b.append(l).append('\n');
      }
    }
    return b.toString();
  }
}
