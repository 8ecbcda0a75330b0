package dev.strata.metal;

import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostFactsRules;
import dev.strata.engine.host.ProbeResult;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The Mac probe: {@code sysctlbyname} for the CPU, memory and OS, the Metal device for the GPU
 * family, Metal 4 and k4. It spawns no process. The native calls live in {@link Sysctl}, {@link
 * MetalGpu} and {@code objc.ObjC}; this class only assembles, so everything but those calls is
 * tested on any machine from recorded buffers.
 */
public final class MacProbe {
  /** The sysctl names read, in the order they are read. */
  static final List<String> NAMES =
      List.of(
          "hw.ncpu",
          "hw.memsize",
          "hw.nperflevels",
          "hw.perflevel0.physicalcpu",
          "hw.perflevel1.physicalcpu",
          "hw.physicalcpu",
          "machdep.cpu.brand_string",
          "kern.osproductversion",
          "iogpu.wired_limit_mb");

  /** The raw reader: a sysctl name to its buffer, empty when the name does not exist. */
  @FunctionalInterface
  interface SysctlSource {
    Optional<byte[]> read(String name);
  }

  /**
   * What to report when a sysctl cannot be read at all (the values stay valid; a note says so).
   *
   * @param cpus logical CPUs as the JVM sees them
   * @param memoryBytes total memory as the JVM sees it (asked only when needed)
   * @param osVersion the {@code os.version} property
   */
  record Fallback(int cpus, LongSupplier memoryBytes, String osVersion) {
    static Fallback jvm() {
      return new Fallback(
          Runtime.getRuntime().availableProcessors(),
          () ->
              ((com.sun.management.OperatingSystemMXBean)
                      ManagementFactory.getOperatingSystemMXBean())
                  .getTotalMemorySize(),
          System.getProperty("os.version", "unknown"));
    }
  }

  private MacProbe() {}

  /** Probes this Mac. Call only on macOS ({@link HostProbe} does the choosing). */
  public static ProbeResult probe() {
    return assemble(Sysctl::read, MetalGpu::query, Fallback.jvm());
  }

  /** Builds the facts from a sysctl reader and a GPU query; never throws. */
  static ProbeResult assemble(
      SysctlSource sysctl, Supplier<GpuReport> gpuQuery, Fallback fallback) {
    List<String> notes = new ArrayList<>();
    Reader r = new Reader(sysctl, notes);

    int cpus = (int) r.integer("hw.ncpu").orElse(-1);
    if (cpus < 1 || cpus > 8192) {
      notes.add("hw.ncpu unreadable: using the JVM's count, " + fallback.cpus());
      cpus = fallback.cpus();
    }
    long memory = r.integer("hw.memsize").orElse(-1);
    if (memory <= 0) {
      memory = fallback.memoryBytes().getAsLong();
      notes.add("hw.memsize unreadable: using the JVM's total memory, " + memory + " bytes");
    }

    int perf;
    int efficiency;
    long levels = r.integerIfPresent("hw.nperflevels").orElse(0);
    if (levels >= 1) {
      // perflevel0 is the fastest level (performance cores), perflevel1 the next (efficiency).
      perf = (int) r.integer("hw.perflevel0.physicalcpu").orElse(0);
      efficiency = levels >= 2 ? (int) r.integer("hw.perflevel1.physicalcpu").orElse(0) : 0;
      if (levels > 2) {
        notes.add("hw.nperflevels is " + levels + ": levels past the second are not counted");
      }
    } else {
      // Intel Macs have no performance levels: every physical core is a performance core.
      perf = (int) r.integerIfPresent("hw.physicalcpu").orElse(cpus);
      efficiency = 0;
    }
    if (perf < 1 || efficiency < 0 || (long) perf + efficiency > cpus) {
      notes.add(
          "performance levels ("
              + perf
              + " P + "
              + efficiency
              + " E) do not fit "
              + cpus
              + " CPUs: reporting all as performance cores");
      perf = cpus;
      efficiency = 0;
    }

    String chip = ChipName.of(r.string("machdep.cpu.brand_string").orElse(""));
    if (chip.equals("unknown")) {
      notes.add("machdep.cpu.brand_string unreadable: chip reported as 'unknown'");
    }
    String osVersion = ChipName.clean(r.string("kern.osproductversion").orElse(""));
    if (osVersion.isEmpty()) {
      osVersion = ChipName.clean(fallback.osVersion());
      osVersion = osVersion.isEmpty() ? "unknown" : osVersion;
      notes.add("kern.osproductversion unreadable: using os.version " + osVersion);
    }

    // iogpu.wired_limit_mb: absent (older macOS) or 0 means the OS default.
    long wired = r.integerIfPresent("iogpu.wired_limit_mb").orElse(0);
    if (wired < 0 || wired > memory >> 20) {
      notes.add(
          "iogpu.wired_limit_mb is "
              + wired
              + ", outside 0.."
              + (memory >> 20)
              + ": reported as 0 (OS default)");
      wired = 0;
    }

    GpuReport gpu;
    try {
      gpu = gpuQuery.get();
    } catch (RuntimeException | LinkageError e) {
      gpu = GpuReport.none("the query failed (" + e.getMessage() + ")");
    }
    notes.addAll(gpu.notes());
    boolean metal4 = gpu.metal4() && gpu.family() >= 1007;
    if (gpu.metal4() && !metal4) {
      notes.add(
          "the GPU reports Metal 4 with Apple family " + gpu.family() + ": metal4 reported false");
    }

    HostFacts facts =
        new HostFacts(
            "macos",
            chip,
            cpus,
            perf,
            efficiency,
            memory,
            gpu.family(),
            metal4,
            gpu.k4() && gpu.family() == HostFacts.FAMILY_APPLE10,
            osVersion,
            wired);
    HostFactsRules.check(facts, "probe"); // the repairs above make this hold; a slip shows in tests
    return new ProbeResult(facts, notes, gpu.recommendedMaxWorkingSet());
  }

  /** Reads and decodes sysctls, turning every failure into a note. */
  private record Reader(SysctlSource source, List<String> notes) {
    OptionalLong integer(String name) {
      OptionalLong v = integerIfPresent(name);
      if (v.isEmpty() && !notes.stream().anyMatch(n -> n.startsWith(name + ":"))) {
        notes.add(name + ": not available");
      }
      return v;
    }

    /** Like {@link #integer} but silent when the name simply does not exist. */
    OptionalLong integerIfPresent(String name) {
      try {
        Optional<byte[]> raw = source.read(name);
        return raw.isEmpty()
            ? OptionalLong.empty()
            : OptionalLong.of(SysctlValues.decodeInteger(raw.get()));
      } catch (RuntimeException | LinkageError e) {
        notes.add(name + ": " + e.getMessage());
        return OptionalLong.empty();
      }
    }

    Optional<String> string(String name) {
      try {
        return source.read(name).map(SysctlValues::decodeString);
      } catch (RuntimeException | LinkageError e) {
        notes.add(name + ": " + e.getMessage());
        return Optional.empty();
      }
    }
  }
}
