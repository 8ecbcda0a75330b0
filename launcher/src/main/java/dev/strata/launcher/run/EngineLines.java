package dev.strata.launcher.run;

import dev.strata.engine.text.ByteSize;
import java.util.Locale;
import java.util.Set;

/**
 * The engine's info lines as a person on a terminal reads them (docs/LAUNCH.md "Output"): byte
 * figures as the plan shows sizes ({@link ByteSize#iec}: {@code peak_rss_bytes=9.94 GiB}), and the
 * engine's {@code progress: phase=P done=N total=M} lines as one line updated in place. Without a
 * terminal the lines pass as the engine wrote them (scripts grep {@code kv:} and {@code decode:});
 * {@code --json} reads the raw lines either way ({@link RunSummary}).
 */
final class EngineLines {
  private EngineLines() {}

  /** The fields of the {@code memory:} line that are byte counts without saying so in the name. */
  private static final Set<String> MEMORY_BYTES = Set.of("total", "budget", "dense", "headroom");

  /**
   * {@code line} with every byte field's value ({@code bytes}, {@code *_bytes}, {@code bytes_*},
   * and the {@code memory:} line's {@link #MEMORY_BYTES}) written as a size; other text unchanged.
   */
  static String withSizes(String line) {
    int colon = line.indexOf(": ");
    if (colon <= 0 || line.indexOf('=') < 0) {
      return line;
    }
    String section = line.substring(0, colon);
    String[] words = line.substring(colon + 2).split(" ", -1);
    StringBuilder sb = new StringBuilder(line.length() + 16).append(section).append(": ");
    for (int i = 0; i < words.length; i++) {
      if (i > 0) {
        sb.append(' ');
      }
      String w = words[i];
      int eq = w.indexOf('=');
      if (eq > 0 && isBytes(section, w.substring(0, eq)) && digits(w, eq + 1)) {
        sb.append(w, 0, eq + 1).append(ByteSize.iec(Long.parseLong(w.substring(eq + 1))));
      } else {
        sb.append(w);
      }
    }
    return sb.toString();
  }

  private static boolean isBytes(String section, String key) {
    return key.equals("bytes")
        || key.endsWith("_bytes")
        || key.startsWith("bytes_")
        || section.equals("memory") && MEMORY_BYTES.contains(key);
  }

  /** Whether {@code s} from {@code from} on is 1 to 18 ASCII digits (a long, never overflowing). */
  private static boolean digits(String s, int from) {
    int n = s.length() - from;
    if (n < 1 || n > 18) {
      return false;
    }
    for (int i = from; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * A {@code progress: phase=P done=N total=M} line for a terminal — {@code prefill: 1,024 of 8,192
   * (12%)} — or null when {@code line} is not one (a malformed one passes as it is).
   */
  static String progress(String line) {
    if (!line.startsWith("progress: ")) {
      return null;
    }
    String phase = null;
    long done = -1;
    long total = -1;
    for (String w : line.substring("progress: ".length()).split(" ")) {
      int eq = w.indexOf('=');
      if (eq <= 0) {
        return null;
      }
      String key = w.substring(0, eq);
      switch (key) {
        case "phase" -> phase = w.substring(eq + 1);
        case "done", "total" -> {
          if (!digits(w, eq + 1)) {
            return null;
          }
          long v = Long.parseLong(w.substring(eq + 1));
          if (key.equals("done")) {
            done = v;
          } else {
            total = v;
          }
        }
        default -> {
          // other fields are the engine's to add: not shown in the one line
        }
      }
    }
    if (phase == null || phase.isEmpty() || done < 0 || total <= 0 || done > total) {
      return null;
    }
    return String.format(
        Locale.ROOT,
        "%s: %,d of %,d (%d%%)",
        phase,
        done,
        total,
        (long) Math.floor(100.0 * done / total));
  }
}
