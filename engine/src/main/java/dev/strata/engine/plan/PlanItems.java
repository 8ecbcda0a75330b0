package dev.strata.engine.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A {@link MemoryPlan}'s buffers as the engine's own accounting lines: {@code plan: item=<name>
 * bytes=<n>}, the format {@code strata_engine_check} logs (docs/ENGINE-ABI.md, the C side is
 * engine/native/src/memory.c). A differential test (tests/…/OneTruthDifferentialTest) compares
 * these lines with strata-ref's byte for byte for every item both have; {@code strata-launch
 * --plan} and {@code --dry-run} show the two side by side.
 *
 * <p>Items (the names of engine/native/src/memory.c): {@code kv} (always; the KV pools of every QSA
 * layer), {@code arena} and {@code standby} (the expert arena and stand-by slots, when the plan
 * holds any). strata-ref allocates only {@code kv} of these, and its own {@code scratch}.
 */
public final class PlanItems {
  /** The prefix of every accounting line. */
  public static final String PREFIX = "plan: item=";

  private PlanItems() {}

  /** The plan's items as accounting lines, in a fixed order. */
  public static List<String> lines(MemoryPlan plan) {
    List<String> out = new ArrayList<>();
    KvPools kv = plan.kv();
    out.add(String.format(Locale.ROOT, "%skv bytes=%d", PREFIX, kv.bytes()));
    ExpertArena a = plan.arena();
    if (a.bytes() > 0) {
      out.add(String.format(Locale.ROOT, "%sarena bytes=%d", PREFIX, a.bytes()));
    }
    if (plan.standbyBytes() > 0) {
      out.add(String.format(Locale.ROOT, "%sstandby bytes=%d", PREFIX, plan.standbyBytes()));
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
