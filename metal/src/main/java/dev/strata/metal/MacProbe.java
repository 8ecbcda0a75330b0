package dev.strata.metal;

import dev.strata.engine.host.AvailableMemory;
import dev.strata.engine.host.ChipName;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostFactsRules;
import dev.strata.engine.host.ProbeResult;
import dev.strata.engine.write.ConfigPaths;
import java.lang.foreign.SymbolLookup;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The Mac probe: {@code sysctlbyname} for the CPU, memory and OS, the Metal device for the GPU
 * family, Metal 4 and k4. It spawns no process. The native calls live in {@link Sysctl}, {@link
 * MetalGpu} and {@code objc.ObjC}, bound from {@link MacSymbols}: the Mac's libraries, or in tests
 * the Darwin stand-in, through which the whole probe runs on Linux. The GPU part runs under {@link
 * GpuProbeGuard}, so a crash or hang in it never leaves the user stuck (docs/PROBE.md).
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

  /**
   * The sysctls of the memory available now (not a host fact; the launch's memory check), read
   * after {@link #NAMES}: pages free, speculative, purgeable and file-backed (the page cache), and
   * the page size. Never run on a Mac (docs/PROBE.md).
   */
  static final List<String> MEMORY_NOW_NAMES =
      List.of(
          "hw.pagesize",
          "vm.page_free_count",
          "vm.page_speculative_count",
          "vm.page_purgeable_count",
          "vm.page_pageable_external_count");

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

  /**
   * Probes this Mac with its own libraries. Call only on macOS ({@link HostProbe} does the
   * choosing).
   *
   * @param env the process environment: {@code STRATA_PROBE}, and HOME / XDG_CACHE_HOME for the
   *     cache folder that holds the GPU probe's marker
   */
  static ProbeResult probe(Map<String, String> env) {
    GpuProbeGuard guard =
        new GpuProbeGuard(
            ConfigPaths.cacheFolder(env, System.getProperty("os.name")),
            GpuProbeGuard.DEFAULT_TIMEOUT,
            env.get(GpuProbeGuard.ENV));
    return assemble(
        name -> Sysctl.darwin().read(name),
        () -> guard.run(() -> metal(MetalGpu::darwin)),
        Fallback.jvm());
  }

  /**
   * The probe of {@link #probe(Map)} with every native function taken from {@code symbols} instead
   * of the Mac's libraries: how the tests run it end to end on Linux against the Darwin stand-in
   * (metal/src/test/native; docs/PROBE.md). Only code can pass a lookup: no setting switches it.
   */
  public static ProbeResult probeWith(SymbolLookup symbols, Map<String, String> env) {
    return probe(
        MacSymbols.of(symbols),
        new GpuProbeGuard(
            ConfigPaths.cacheFolder(env, System.getProperty("os.name")),
            GpuProbeGuard.DEFAULT_TIMEOUT,
            env.get(GpuProbeGuard.ENV)),
        Fallback.jvm());
  }

  /** Probes through {@code symbols}: the same code as {@link #probe(Map)}, other libraries. */
  static ProbeResult probe(MacSymbols symbols, GpuProbeGuard guard, Fallback fallback) {
    SysctlSource sysctl =
        new SysctlSource() {
          private Sysctl bound;

          @Override
          public Optional<byte[]> read(String name) {
            if (bound == null) {
              bound = Sysctl.bind(symbols.system().get());
            }
            return bound.read(name);
          }
        };
    return assemble(sysctl, () -> guard.run(() -> metal(() -> MetalGpu.bind(symbols))), fallback);
  }

  /** Binds Metal (only now: a skipped GPU probe never even loads it) and asks the device. */
  private static GpuReport metal(Supplier<MetalGpu> bind) {
    MetalGpu gpu;
    try {
      gpu = bind.get();
    } catch (RuntimeException | LinkageError e) {
      Throwable cause =
          e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
      return GpuReport.none("cannot load Metal (" + cause.getMessage() + ")");
    }
    return gpu.query();
  }

  /** Builds the facts from a sysctl reader and a GPU query; never throws. */
  static ProbeResult assemble(
      SysctlSource sysctl, Supplier<GpuReport> gpuQuery, Fallback fallback) {
    List<String> notes = new ArrayList<>();
    Reader r = new Reader(sysctl, notes);

    // Silent when absent: the fallback line below names the sysctl.
    int cpus = (int) r.integerIfPresent("hw.ncpu").orElse(-1);
    if (cpus < 1 || cpus > 8192) {
      notes.add("hw.ncpu unreadable: using the JVM's count, " + fallback.cpus());
      cpus = fallback.cpus();
    }
    long memory = r.integerIfPresent("hw.memsize").orElse(-1);
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

    String brand = r.string("machdep.cpu.brand_string").orElse("");
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

    String chip = ChipName.of(brand);
    if (chip.equals("unknown") && !gpu.deviceName().isEmpty()) {
      chip = ChipName.of(gpu.deviceName());
      notes.add(
          "machdep.cpu.brand_string unreadable: chip taken from the Metal device name '"
              + chip
              + "'");
    } else if (chip.equals("unknown")) {
      notes.add("machdep.cpu.brand_string unreadable: chip reported as 'unknown'");
    }

    int family = gpu.family();
    boolean metal4 = gpu.metal4() && family >= 1007;
    boolean k4 = gpu.k4() && family == HostFacts.FAMILY_APPLE10;
    if (gpu.fromMetal()) {
      notes.addAll(gpu.notes());
      if (gpu.metal4() && !metal4) {
        notes.add(
            "the GPU reports Metal 4 with Apple family " + family + ": metal4 reported false");
      }
    } else {
      OptionalInt byChip = GpuFamilies.ofChip(chip);
      family = byChip.orElse(0);
      metal4 = GpuFamilies.metal4(family, osVersion);
      k4 = family == HostFacts.FAMILY_APPLE10;
      String took =
          byChip.isPresent()
              ? "gpu_family "
                  + family
                  + ", k4 "
                  + (k4 ? "yes" : "no")
                  + ", metal4 "
                  + (metal4 ? "yes" : "no")
                  + " taken from the chip name '"
                  + chip
                  + "' (strata-setup --gpu-family changes it)"
              : "the chip '"
                  + chip
                  + "' names no Apple GPU: gpu_family 0, metal4 and k4 false"
                  + " (strata-setup --gpu-family changes it)";
      String advice = gpu.notes().size() > 1 ? gpu.notes().get(1) : "";
      notes.add(
          "Metal: "
              + gpu.notes().getFirst()
              + "; "
              + took
              + (advice.isEmpty() ? "" : "; " + advice));
    }

    HostFacts facts =
        new HostFacts(
            "macos", chip, cpus, perf, efficiency, memory, family, metal4, k4, osVersion, wired);
    HostFactsRules.check(facts, "probe"); // the repairs above make this hold; a slip shows in tests
    return new ProbeResult(
        facts, notes, gpu.recommendedMaxWorkingSet(), gpu.fromMetal(), availableNow(r, memory));
  }

  /**
   * What is available now: (free + speculative + purgeable + file-backed pages) × page size, the
   * pages macOS hands out without compressing or swapping; null when a sysctl is missing.
   */
  private static AvailableMemory availableNow(Reader r, long memory) {
    long page = r.integerIfPresent(MEMORY_NOW_NAMES.getFirst()).orElse(-1);
    if (page <= 0 || page > 1 << 30) {
      return null;
    }
    long pages = 0;
    for (String name : MEMORY_NOW_NAMES.subList(1, MEMORY_NOW_NAMES.size())) {
      long n = r.integerIfPresent(name).orElse(-1);
      if (n < 0) {
        return null;
      }
      pages += n;
    }
    return pages > memory / page
        ? new AvailableMemory(memory, memory, "sysctl vm.page_*_count")
        : new AvailableMemory(memory, pages * page, "sysctl vm.page_*_count");
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
