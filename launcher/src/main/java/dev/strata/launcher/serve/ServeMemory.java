package dev.strata.launcher.serve;

import dev.strata.engine.plan.PlanItems;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the server's session holds against what the engine said it allocates: the process's resident
 * set before the session opened ({@code VmRSS} of /proc/self/status), its peak when the server
 * stops ({@code VmHWM}), and the sum of the engine's {@code alloc: item=… bytes=…} lines — the
 * plan's items (docs/ENGINE-ABI.md). The stop line {@code serve: memory: …} carries the three, so a
 * load test can check that serving stays within the plan (ServeE2eTest). Linux only: the figures
 * are -1 where /proc is absent.
 */
final class ServeMemory {
  private final long startRss = status("VmRSS:");
  private final AtomicLong allocated = new AtomicLong();

  /** Counts an engine line when it is an {@code alloc:} item. */
  void line(String line) {
    if (line.startsWith("alloc: item=")) {
      long b = PlanItems.bytes("plan: " + line.substring("alloc: ".length()));
      if (b > 0) {
        allocated.addAndGet(b);
      }
    }
  }

  /**
   * {@code serve: memory: start_rss_bytes=S allocated_bytes=A}, said once the session is open (a
   * test reads the process's peak from /proc/PID/status against it while the server runs).
   */
  String startLine() {
    return String.format(
        Locale.ROOT,
        "serve: memory: start_rss_bytes=%d allocated_bytes=%d",
        startRss,
        allocated.get());
  }

  /** {@code serve: memory: peak_rss_bytes=P start_rss_bytes=S allocated_bytes=A}. */
  String stopLine() {
    return String.format(
        Locale.ROOT,
        "serve: memory: peak_rss_bytes=%d start_rss_bytes=%d allocated_bytes=%d",
        status("VmHWM:"),
        startRss,
        allocated.get());
  }

  /** A {@code kB} figure of /proc/self/status in bytes, or -1. */
  private static long status(String key) {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (l.startsWith(key)) {
          String v = l.substring(key.length()).trim();
          return Long.parseLong(v.substring(0, v.indexOf(' '))) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or a line of another shape: unknown
    }
    return -1;
  }
}
