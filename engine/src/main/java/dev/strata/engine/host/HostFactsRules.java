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
    At at = new At(source, where);
    if (!"macos".equals(f.os()) && !"linux".equals(f.os())) {
      throw at.field("os", "\"macos\" or \"linux\"", "\"" + Clip.clip(f.os()) + "\"");
    }
    text(at, "chip", f.chip());
    text(at, "os_version", f.osVersion());
    if (f.cpuCores() < 1 || f.cpuCores() > MAX_CPUS) {
      throw at.field("cpu_cores", "1.." + MAX_CPUS, f.cpuCores());
    }
    if (f.perfCores() < 1) {
      throw at.field("perf_cores", "at least 1", f.perfCores());
    }
    if (f.efficiencyCores() < 0) {
      throw at.field("efficiency_cores", "0 or more", f.efficiencyCores());
    }
    if ((long) f.perfCores() + f.efficiencyCores() > f.cpuCores()) {
      throw at.bad(
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
      throw at.field("memory_bytes", "above 0", f.memoryBytes());
    }
    int family = f.gpuFamily();
    if (family != 0 && (family < 1001 || family > HostFacts.FAMILY_APPLE10)) {
      throw at.field("gpu_family", "0 (no Apple GPU) or an Apple family 1001..1010", family);
    }
    if (f.k4() && family != HostFacts.FAMILY_APPLE10) {
      throw at.bad(
          "k4",
          "k4 is true but gpu_family is "
              + family
              + ": k4 means the GPU supports Apple10 (gpu_family 1010, M5 class)");
    }
    if (!f.k4() && family == HostFacts.FAMILY_APPLE10) {
      throw at.bad(
          "k4", "gpu_family is 1010 (Apple10, M5 class) but k4 is false: an Apple10 GPU is k4");
    }
    if (f.metal4() && family < 1007) {
      throw at.bad(
          "metal4",
          "metal4 is true but gpu_family is "
              + family
              + ": Metal 4 needs an Apple7 (M1) GPU or newer");
    }
    if (f.wiredLimitMb() < 0) {
      throw at.field("wired_limit_mb", "0 (OS default) or more", f.wiredLimitMb());
    }
    if (f.memoryBytes() > 0 && f.wiredLimitMb() > f.memoryBytes() >> 20) {
      throw at.bad(
          "wired_limit_mb",
          "wired_limit_mb "
              + f.wiredLimitMb()
              + " exceeds memory_bytes ("
              + (f.memoryBytes() >> 20)
              + " MiB)");
    }
    if ("linux".equals(f.os()) && (family != 0 || f.metal4() || f.wiredLimitMb() != 0)) {
      String field = family != 0 ? "gpu_family" : f.metal4() ? "metal4" : "wired_limit_mb";
      throw at.bad(
          field, "os is linux, so gpu_family must be 0, metal4 and k4 false and wired_limit_mb 0");
    }
  }

  private static void text(At at, String field, String value) {
    if (value.isBlank()) {
      throw at.bad(field, "field '" + field + "' must not be empty");
    }
    if (value.length() > MAX_TEXT) {
      throw at.bad(field, "field '" + field + "' is longer than " + MAX_TEXT + " characters");
    }
    // The text is printed to terminals later: no escape sequences or bidi tricks ride along.
    for (int i = 0, c; i < value.length(); i += Character.charCount(c)) {
      c = value.codePointAt(i);
      if (Character.isISOControl(c) || Character.getType(c) == Character.FORMAT) {
        throw at.bad(field, "field '" + field + "' must not contain control or format characters");
      }
    }
  }

  /**
   * Where the facts came from: the source's name and each field's position suffix in it.
   *
   * @param where field → ":line:col" in the source, when the source is a file
   */
  private record At(String source, Map<String, String> where) {
    /** "SOURCE:LINE:COL: WHAT", naming the field at fault. */
    HostFileException bad(String field, String what) {
      return new HostFileException(source + where.getOrDefault(field, "") + ": " + what, field);
    }

    /** "field 'F' must be RULE, got VALUE". */
    HostFileException field(String field, String rule, Object got) {
      return bad(field, "field '" + field + "' must be " + rule + ", got " + got);
    }
  }
}
