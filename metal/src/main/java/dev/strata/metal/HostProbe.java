package dev.strata.metal;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.host.ProbeResult;
import java.util.Locale;

/** Probes this machine: {@link MacProbe} on macOS, {@link LinuxProbe} on Linux. */
public final class HostProbe {
  private HostProbe() {}

  /**
   * Probes the machine the JVM runs on. Never throws for a value it cannot read (that becomes a
   * note); throws only on an operating system it has no probe for.
   *
   * @throws StrataException (exit 2) on an OS other than macOS or Linux
   */
  public static ProbeResult probe() {
    String os = System.getProperty("os.name", "");
    return switch (family(os)) {
      case "macos" -> MacProbe.probe();
      case "linux" -> LinuxProbe.probe();
      default ->
          throw new StrataException(
              ExitCodes.USAGE,
              "cannot probe '"
                  + os
                  + "': only macOS and Linux are probed; pass --host-file FILE or a profile name"
                  + " (strata-setup probe --list-hosts)");
    };
  }

  /** "macos", "linux" or "other" for a value of the {@code os.name} property. */
  static String family(String osName) {
    String os = osName.toLowerCase(Locale.ROOT);
    if (os.startsWith("mac") || os.startsWith("darwin")) {
      return "macos";
    }
    return os.startsWith("linux") ? "linux" : "other";
  }
}
