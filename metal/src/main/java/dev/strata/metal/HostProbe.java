package dev.strata.metal;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.Os;
import dev.strata.engine.StrataException;
import dev.strata.engine.host.AvailableMemory;
import dev.strata.engine.host.GpuFamily;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.LinuxProbe;
import dev.strata.engine.host.ProbeResult;
import java.util.Locale;
import java.util.Map;

/** Probes this machine: {@link MacProbe} on macOS, {@link LinuxProbe} on Linux. */
public final class HostProbe {
  /** The environment variable that chooses the probe's mode (docs/PROBE.md). */
  public static final String PROBE_ENV = GpuProbeGuard.ENV;

  /** {@link #PROBE_ENV}'s one value: sysctl only, the Metal GPU query is not run. */
  public static final String SYSCTL_ONLY = GpuProbeGuard.SYSCTL_ONLY;

  private HostProbe() {}

  /**
   * Probes the machine the JVM runs on. Never throws for a value it cannot read (that becomes a
   * note); throws only on an operating system it has no probe for.
   *
   * @throws StrataException (exit 2) on an OS other than macOS or Linux
   */
  public static ProbeResult probe() {
    return probe(System.getenv());
  }

  /**
   * Probes the machine the JVM runs on, with {@code env} for {@code STRATA_PROBE} and the cache
   * folder (HOME, XDG_CACHE_HOME).
   *
   * @throws StrataException (exit 2) on an OS other than macOS or Linux, or a {@code STRATA_PROBE}
   *     other than {@code sysctl-only}
   */
  public static ProbeResult probe(Map<String, String> env) {
    GpuProbeGuard.checkMode(env.get(GpuProbeGuard.ENV))
        .ifPresent(
            m -> {
              throw new StrataException(ExitCodes.USAGE, m);
            });
    String os = System.getProperty("os.name", "");
    ProbeResult r =
        switch (family(os)) {
          case "macos" -> MacProbe.probe(env);
          case "linux" -> LinuxProbe.probe();
          default ->
              throw new StrataException(
                  ExitCodes.USAGE,
                  "cannot probe '"
                      + os
                      + "': only macOS and Linux are probed; pass --host-file FILE or a profile name"
                      + " (strata-setup probe --list-hosts)");
        };
    // STRATA_MEMINFO: a meminfo file instead of what the machine has free now (AvailableMemory)
    return r.withAvailable(AvailableMemory.overridden(r.available(), env));
  }

  /**
   * A Mac's facts with the GPU family the user gave ({@code strata-setup --gpu-family}, or the
   * wizard's answer when the GPU probe could not run): k4 exactly on Apple10, Metal 4 from Apple7
   * on macOS 26 or later (docs/PROBE.md).
   *
   * @param family 0 (no Apple GPU) or 1001–1010
   * @throws IllegalArgumentException for another family, or facts that are not a Mac's
   */
  public static HostFacts withGpuFamily(HostFacts mac, int family) {
    if (!mac.isMac()
        || (family != 0 && (family < GpuFamily.FIRST_APPLE || family > HostFacts.FAMILY_APPLE10))) {
      throw new IllegalArgumentException("gpu family " + family + " for " + mac.os());
    }
    return new HostFacts(
        mac.os(),
        mac.chip(),
        mac.cpuCores(),
        mac.perfCores(),
        mac.efficiencyCores(),
        mac.memoryBytes(),
        family,
        GpuFamilies.metal4(family, mac.osVersion()),
        family == HostFacts.FAMILY_APPLE10,
        mac.osVersion(),
        mac.wiredLimitMb());
  }

  /**
   * The GPU family the chip name implies ("Apple M4 Pro" → 1009), for the wizard's default when the
   * GPU probe could not run; 0 when the name is not an Apple M chip.
   */
  public static int gpuFamilyOfChip(String chip) {
    return GpuFamilies.ofChip(chip).orElse(0);
  }

  /** "macos", "linux" or "other" for a value of the {@code os.name} property. */
  static String family(String osName) {
    if (Os.isMac(osName)) {
      return "macos";
    }
    return osName.toLowerCase(Locale.ROOT).startsWith("linux") ? "linux" : "other";
  }
}
