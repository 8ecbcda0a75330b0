package dev.strata.launcher.run;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a dead {@code --isolate} child into one line for the user.
 *
 * <p>A fault in native code inside a JVM does not kill the process with that signal: HotSpot's own
 * handler catches SIGSEGV/SIGBUS/SIGFPE/SIGILL, prints its fatal-error banner and writes an hs_err
 * report, then aborts — so the child's exit status says SIGABRT (134) while the fault was a
 * SIGSEGV. The banner's {@code # SIGSEGV (0xb) at pc=…} line names the real signal and the {@code #
 * Problematic frame:} line the faulting library, so they win over the exit status; a plain {@code
 * abort()} in the engine (no banner) is reported from the status.
 */
public final class CrashReport {
  private static final Pattern BANNER_SIGNAL =
      Pattern.compile("^#\\s+(SIG[A-Z0-9]+) \\((0x[0-9a-fA-F]+)\\)");
  private static final Pattern FRAME = Pattern.compile("^#\\s+[CJjVv]\\s+(\\[[^\\]]+\\]\\s*\\S*)");

  private static final Map<Integer, String> NAMES =
      Map.of(
          1, "SIGHUP", 2, "SIGINT", 4, "SIGILL", 6, "SIGABRT", 7, "SIGBUS", 8, "SIGFPE", 9,
          "SIGKILL", 11, "SIGSEGV", 15, "SIGTERM");

  private CrashReport() {}

  /**
   * The one line (without the {@code strata-launch: } prefix).
   *
   * @param exitValue the child's exit status as {@link Process#exitValue()} reports it (128 + n for
   *     a signal on Unix)
   * @param banner the child's output lines starting with {@code #}
   * @param errorFile where the child's hs_err report was written, or null when there is none
   */
  public static String describe(int exitValue, List<String> banner, Path errorFile) {
    int signal = 0;
    String name = null;
    String frame = null;
    for (int i = 0; i < banner.size(); i++) {
      String line = banner.get(i);
      Matcher m = BANNER_SIGNAL.matcher(line);
      if (name == null && m.find()) {
        name = m.group(1);
        signal = Integer.decode(m.group(2));
      }
      if (frame == null && line.startsWith("# Problematic frame:") && i + 1 < banner.size()) {
        Matcher f = FRAME.matcher(banner.get(i + 1));
        if (f.find()) {
          frame = f.group(1).strip().replaceAll("\\s+", " ");
        }
      }
    }
    if (name == null && exitValue > 128) {
      signal = exitValue - 128;
      name = NAMES.getOrDefault(signal, "SIG" + signal);
    }
    StringBuilder s = new StringBuilder("engine crashed: ");
    if (name != null) {
      s.append("signal ").append(signal).append(" (").append(name).append(")");
      if (frame != null) {
        s.append(" at ").append(frame);
      }
      s.append(" — the engine library faulted");
    } else {
      s.append("its process ended with status ")
          .append(exitValue)
          .append(" without reporting an exit code");
    }
    if (errorFile != null) {
      s.append("; crash report: ").append(errorFile);
    }
    s.append("; rerun without --isolate for a core dump");
    return s.toString();
  }
}
