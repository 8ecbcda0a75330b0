package dev.strata.engine.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalLong;

/**
 * How much memory this machine has available now, as the launch counts it (docs/LAUNCH.md "Memory
 * available now"). Not a host fact: it changes from one second to the next, so no config or host
 * file holds it; the probe reads it, and only a launch, a dry run or a plan for this machine uses
 * it.
 *
 * <p>Linux: {@code MemAvailable} of /proc/meminfo, the kernel's estimate of what can be allocated
 * without swapping (free pages plus the page cache and reclaimable slab it would give back). The
 * page cache is in it already — the model's own cached pages among it — so nothing is added for
 * them. macOS: free + speculative + purgeable + file-backed pages ({@code vm.page_*_count} × {@code
 * hw.pagesize}; never run on a Mac).
 *
 * @param totalBytes the machine's memory (MemTotal, hw.memsize)
 * @param availableBytes what is available now, at most {@code totalBytes}
 * @param source where the figures were read (for messages: {@code /proc/meminfo}, the sysctls, or
 *     the file {@link #SOURCE_ENV} named)
 */
public record AvailableMemory(long totalBytes, long availableBytes, String source) {
  /**
   * The environment variable naming a file read instead of /proc/meminfo (or the Mac's sysctls):
   * the same {@code MemAvailable:} / {@code MemTotal:} lines. A file without {@code MemAvailable}
   * (or {@code /dev/null}) means "unknown": the launch then checks nothing against it. The test
   * suite sets it, so that no test depends on this machine's free memory.
   */
  public static final String SOURCE_ENV = "STRATA_MEMINFO";

  public AvailableMemory {
    if (totalBytes <= 0 || availableBytes < 0) {
      throw new IllegalArgumentException(
          "available memory " + availableBytes + " of " + totalBytes + " bytes");
    }
    availableBytes = Math.min(availableBytes, totalBytes);
  }

  /** What the rest of the machine holds now: total − available. */
  public long heldElsewhereBytes() {
    return totalBytes - availableBytes;
  }

  /**
   * MemAvailable and MemTotal of a /proc/meminfo text; null when either is missing (a kernel before
   * 3.14 has no MemAvailable) or not a size.
   */
  public static AvailableMemory fromMeminfo(String meminfo, String source) {
    OptionalLong total = LinuxProbe.meminfoBytes(meminfo, "MemTotal");
    OptionalLong available = LinuxProbe.meminfoBytes(meminfo, "MemAvailable");
    if (total.isEmpty() || available.isEmpty()) {
      return null;
    }
    return new AvailableMemory(total.getAsLong(), available.getAsLong(), source);
  }

  /**
   * The probe's figure, or the file {@link #SOURCE_ENV} names when it is set in {@code env} (else
   * in this process's environment): {@code probed} unchanged when the variable is not set; null
   * when the file cannot be read or has no MemAvailable.
   */
  public static AvailableMemory overridden(AvailableMemory probed, Map<String, String> env) {
    String file = env.containsKey(SOURCE_ENV) ? env.get(SOURCE_ENV) : System.getenv(SOURCE_ENV);
    if (file == null) {
      return probed;
    }
    try {
      return file.isEmpty()
          ? null
          : fromMeminfo(Files.readString(Path.of(file), StandardCharsets.UTF_8), file);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
