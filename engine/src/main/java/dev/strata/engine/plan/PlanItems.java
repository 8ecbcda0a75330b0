package dev.strata.engine.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine's accounting lines {@code plan: item=<name> bytes=<n>} (what {@code
 * strata_engine_check} logs, docs/ENGINE-ABI.md; engine/native/src/memory.c on the C side) on the
 * launcher's side: the plan's items ({@link PlanText#items}) in that format, and readers of such
 * lines. {@code strata-launch --plan} and {@code --dry-run} show the engine's items beside the
 * plan's; tests/…/OneTruthDifferentialTest compares them byte for byte for every item both have.
 */
public final class PlanItems {
  /** The prefix of every accounting line. */
  public static final String PREFIX = "plan: item=";

  private PlanItems() {}

  /**
   * The plan's items as the check's accounting lines: {@link PlanText#items} (the one rendering of
   * the plan's items), each prefixed {@code plan: }.
   */
  public static List<String> lines(MemoryPlan plan) {
    List<String> out = new ArrayList<>();
    for (String item : PlanText.items(plan)) {
      out.add("plan: " + item);
    }
    return out;
  }

  /** The item name of an accounting line, or null when the line is not one. */
  public static String name(String line) {
    if (!line.startsWith(PREFIX)) {
      return null;
    }
    int end = line.indexOf(' ', PREFIX.length());
    return line.substring(PREFIX.length(), end < 0 ? line.length() : end);
  }

  /** The {@code bytes=} figure of an accounting line, or -1. */
  public static long bytes(String line) {
    for (String part : line.split(" ")) {
      if (part.startsWith("bytes=")) {
        try {
          return Long.parseLong(part.substring("bytes=".length()));
        } catch (NumberFormatException e) {
          return -1;
        }
      }
    }
    return -1;
  }

  /** Accounting lines by item name (the first line of each name), in their order. */
  public static Map<String, String> byName(List<String> lines) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String l : lines) {
      String n = name(l);
      if (n != null) {
        m.putIfAbsent(n, l);
      }
    }
    return m;
  }
}
