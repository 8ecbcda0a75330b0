package dev.strata.engine.host;

import dev.strata.engine.text.Clip;
import java.util.Map;

/**
 * The value rules of the host JSON: what a real machine can look like. Kept apart from {@link
 * HostFactsCodec} so the probes check their facts without loading Jackson.
 */
public final class HostFactsRules {
  /** Sanity bound for CPU counts (Linux's usual kernel_max is 8192). */
  static final int MAX_CPUS = 8192;

  /** Sanity bound for the two free-text fields. */
  static final int MAX_TEXT = 256;

  private HostFactsRules() {}

  /**
   * Checks that {@code facts} could describe a real machine: {@code os} macos or linux; CPU counts
   * from 1, performance + efficiency ≤ CPUs; memory above 0; {@code gpu_family} 0 or 1001–1010;
   * {@code k4} exactly when the family is Apple10; Metal 4 only from Apple7 (M1) on; nothing
   * GPU-related on Linux; the two texts non-blank, short and free of control characters.
   *
   * @throws HostFileException naming {@code source} and the field at fault
   */
  public static void check(HostFacts facts, String source) {
    check(facts, source, Map.of());
  }

  /**
   * As {@link #check(HostFacts, String)}, with {@code where} giving each field's position suffix in
   * the source (":line:col"), so a file's message points at the value.
   */
  static void check(HostFacts f, String source, Map<String, String> where) {
    if (!"macos".equals(f.os()) && !"linux".equals(f.os())) {
      bad(
          source,
          where,
          "os",
          "field 'os' must be \"macos\" or \"linux\", got \"" + Clip.clip(f.os()) + "\"");
    }
    text(source, where, "chip", f.chip());
    text(source, where, "os_version", f.osVersion());
    if (f.cpuCores() < 1 || f.cpuCores() > MAX_CPUS) {
      bad(
          source,
          where,
          "cpu_cores",
          "field 'cpu_cores' must be 1.." + MAX_CPUS + ", got " + f.cpuCores());
    }
    if (f.perfCores() < 1) {
      bad(
          source,
          where,
          "perf_cores",
          "field 'perf_cores' must be at least 1, got " + f.perfCores());
    }
    if (f.efficiencyCores() < 0) {
      bad(
          source,
          where,
          "efficiency_cores",
          "field 'efficiency_cores' must be 0 or more, got " + f.efficiencyCores());
    }
    if ((long) f.perfCores() + f.efficiencyCores() > f.cpuCores()) {
      bad(
          source,
          where,
          "perf_cores",
          "perf_cores + efficiency_cores ("
              + f.perfCores()
              + " + "
              + f.efficiencyCores()
              + ") exceed cpu_cores ("
              + f.cpuCores()
              + ")");
    }
    if (f.memoryBytes() <= 0) {
      bad(
          source,
          where,
          "memory_bytes",
          "field 'memory_bytes' must be above 0, got " + f.memoryBytes());
    }
    int family = f.gpuFamily();
    if (family != 0 && (family < 1001 || family > HostFacts.FAMILY_APPLE10)) {
      bad(
          source,
          where,
          "gpu_family",
          "field 'gpu_family' must be 0 (no Apple GPU) or an Apple family 1001..1010, got "
              + family);
    }
    if (f.k4() && family != HostFacts.FAMILY_APPLE10) {
      bad(
          source,
          where,
          "k4",
          "k4 is true but gpu_family is "
              + family
              + ": k4 means the GPU supports Apple10 (gpu_family 1010, M5 class)");
    }
    if (!f.k4() && family == HostFacts.FAMILY_APPLE10) {
      bad(
          source,
          where,
          "k4",
          "gpu_family is 1010 (Apple10, M5 class) but k4 is false: an Apple10 GPU is k4");
    }
    if (f.metal4() && family < 1007) {
      bad(
          source,
          where,
          "metal4",
          "metal4 is true but gpu_family is "
              + family
              + ": Metal 4 needs an Apple7 (M1) GPU or newer");
    }
    if (f.wiredLimitMb() < 0) {
      bad(
          source,
          where,
          "wired_limit_mb",
          "field 'wired_limit_mb' must be 0 (OS default) or more, got " + f.wiredLimitMb());
    }
    if (f.memoryBytes() > 0 && f.wiredLimitMb() > f.memoryBytes() >> 20) {
      bad(
          source,
          where,
          "wired_limit_mb",
          "wired_limit_mb "
              + f.wiredLimitMb()
              + " exceeds memory_bytes ("
              + (f.memoryBytes() >> 20)
              + " MiB)");
    }
    if ("linux".equals(f.os()) && (family != 0 || f.metal4() || f.wiredLimitMb() != 0)) {
      String field = family != 0 ? "gpu_family" : f.metal4() ? "metal4" : "wired_limit_mb";
      bad(
          source,
          where,
          field,
          "os is linux, so gpu_family must be 0, metal4 and k4 false and wired_limit_mb 0");
    }
  }

  private static void text(String source, Map<String, String> where, String field, String value) {
    if (value.isBlank()) {
      bad(source, where, field, "field \'" + field + "\' must not be empty");
    }
    if (value.length() > MAX_TEXT) {
      bad(
          source,
          where,
          field,
          "field \'" + field + "\' is longer than " + MAX_TEXT + " characters");
    }
    // The text is printed to terminals later: no escape sequences or bidi tricks ride along.
    for (int i = 0, c; i < value.length(); i += Character.charCount(c)) {
      c = value.codePointAt(i);
      if (Character.isISOControl(c) || Character.getType(c) == Character.FORMAT) {
        bad(
            source,
            where,
            field,
            "field '" + field + "' must not contain control or format characters");
      }
    }
  }

  private static void bad(String source, Map<String, String> where, String field, String what) {
    throw new HostFileException(source + where.getOrDefault(field, "") + ": " + what, field);
  }
}
