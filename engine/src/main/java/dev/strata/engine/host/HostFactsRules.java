package dev.strata.engine.host;

import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.text.Clip;
import dev.strata.engine.text.TerminalText;
import java.util.Map;

/**
 * The value rules of the host JSON: what a real machine can look like. Kept apart from {@link
 * HostFactsCodec} so the probes check their facts without loading Jackson.
 */
public final class HostFactsRules {
  /** Sanity bound for CPU counts (Linux's usual kernel_max is 8192). */
  static final int MAX_CPUS = 8192;

  /**
   * Sanity bound for {@code memory_bytes}: 16 TiB, the largest memory budget the engines take
   * ({@link EngineFlags#MAX_MEM_BUDGET_MB}), far above any Mac.
   */
  static final long MAX_MEMORY = EngineFlags.MAX_MEM_BUDGET_MB << 20;

  /** Sanity bound for the two free-text fields. */
  static final int MAX_TEXT = 256;

  private HostFactsRules() {}

  /**
   * Checks that {@code facts} could describe a real machine: {@code os} macos or linux; CPU counts
   * from 1, performance + efficiency ≤ CPUs; memory above 0 and at most 16 TiB; {@code gpu_family}
   * 0 or 1001–1010; {@code k4} exactly when the family is Apple10; Metal 4 only from Apple7 (M1)
   * on; nothing GPU-related on Linux; the two texts non-blank, short and free of control
   * characters.
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
    check(f, new At(source, where));
  }

  /**
   * How a broken rule is reported where the facts live: a host JSON file (its fields named {@code
   * field 'chip'}, the message prefixed with the file and position) or an engine config's {@code
   * host:} section (named {@code host.chip}, pointing at the config's line). One rule set, two
   * wordings of where.
   */
  public interface Fault {
    /** The field as the subject of a sentence: {@code field 'chip'} or {@code host.chip}. */
    String subject(String field);

    /** The field named inside a sentence: {@code chip} or {@code host.chip}. */
    String key(String field);

    /** The failure to throw for {@code field}, whose sentence is {@code what}. */
    RuntimeException at(String field, String what);
  }

  /**
   * As {@link #check(HostFacts, String)}, reporting through {@code fault} (an engine config's host
   * section uses this, so a config and a host file obey the same rules).
   *
   * @throws RuntimeException what {@code fault} makes of the first broken rule
   */
  public static void check(HostFacts f, Fault fault) {
    if (!"macos".equals(f.os()) && !"linux".equals(f.os())) {
      throw field(fault, "os", "\"macos\" or \"linux\"", "\"" + Clip.clip(f.os()) + "\"");
    }
    text(fault, "chip", f.chip());
    text(fault, "os_version", f.osVersion());
    if (f.cpuCores() < 1 || f.cpuCores() > MAX_CPUS) {
      throw field(fault, "cpu_cores", "1.." + MAX_CPUS, f.cpuCores());
    }
    if (f.perfCores() < 1) {
      throw field(fault, "perf_cores", "at least 1", f.perfCores());
    }
    if (f.efficiencyCores() < 0) {
      throw field(fault, "efficiency_cores", "0 or more", f.efficiencyCores());
    }
    if ((long) f.perfCores() + f.efficiencyCores() > f.cpuCores()) {
      throw fault.at(
          "perf_cores",
          fault.key("perf_cores")
              + " + "
              + fault.key("efficiency_cores")
              + " ("
              + f.perfCores()
              + " + "
              + f.efficiencyCores()
              + ") exceed "
              + fault.key("cpu_cores")
              + " ("
              + f.cpuCores()
              + ")");
    }
    if (f.memoryBytes() <= 0) {
      throw field(fault, "memory_bytes", "above 0", f.memoryBytes());
    }
    if (f.memoryBytes() > MAX_MEMORY) {
      // said here, at the field, not later as the engine flag the plan derives from it
      throw field(fault, "memory_bytes", "at most " + MAX_MEMORY + " (16 TiB)", f.memoryBytes());
    }
    int family = f.gpuFamily();
    if (family != 0 && (family < GpuFamily.FIRST_APPLE || family > HostFacts.FAMILY_APPLE10)) {
      throw field(fault, "gpu_family", "0 (no Apple GPU) or an Apple family 1001..1010", family);
    }
    String k4 = fault.key("k4");
    String gpuFamily = fault.key("gpu_family");
    if (f.k4() && family != HostFacts.FAMILY_APPLE10) {
      throw fault.at(
          "k4",
          k4
              + " is true but "
              + gpuFamily
              + " is "
              + family
              + ": "
              + k4
              + " means the GPU supports Apple10 ("
              + gpuFamily
              + " 1010, M5 class)");
    }
    if (!f.k4() && family == HostFacts.FAMILY_APPLE10) {
      throw fault.at(
          "k4",
          gpuFamily
              + " is 1010 (Apple10, M5 class) but "
              + k4
              + " is false: an Apple10 GPU is "
              + k4);
    }
    if (f.metal4() && family < 1007) {
      throw fault.at(
          "metal4",
          fault.key("metal4")
              + " is true but "
              + gpuFamily
              + " is "
              + family
              + ": Metal 4 needs an Apple7 (M1) GPU or newer");
    }
    String wired = fault.key("wired_limit_mb");
    if (f.wiredLimitMb() < 0) {
      throw field(fault, "wired_limit_mb", "0 (OS default) or more", f.wiredLimitMb());
    }
    if (f.memoryBytes() > 0 && f.wiredLimitMb() > f.memoryBytes() >> 20) {
      throw fault.at(
          "wired_limit_mb",
          wired
              + " "
              + f.wiredLimitMb()
              + " exceeds "
              + fault.key("memory_bytes")
              + " ("
              + (f.memoryBytes() >> 20)
              + " MiB)");
    }
    if ("linux".equals(f.os()) && (family != 0 || f.metal4() || f.wiredLimitMb() != 0)) {
      String field = family != 0 ? "gpu_family" : f.metal4() ? "metal4" : "wired_limit_mb";
      throw fault.at(
          field,
          fault.key("os")
              + " is linux, so "
              + gpuFamily
              + " must be 0, "
              + fault.key("metal4")
              + " and "
              + k4
              + " false and "
              + wired
              + " 0");
    }
  }

  /** "SUBJECT must be RULE, got VALUE". */
  private static RuntimeException field(Fault fault, String field, String rule, Object got) {
    return fault.at(field, fault.subject(field) + " must be " + rule + ", got " + got);
  }

  private static void text(Fault fault, String field, String value) {
    if (value.isBlank()) {
      throw fault.at(field, fault.subject(field) + " must not be empty");
    }
    if (value.length() > MAX_TEXT) {
      throw fault.at(field, fault.subject(field) + " is longer than " + MAX_TEXT + " characters");
    }
    // The text is printed to terminals later: no escape sequences, bidi tricks or line separators
    // ride along. The one test of what a terminal must not get raw (TerminalText).
    if (!TerminalText.isClean(value)) {
      throw fault.at(
          field, fault.subject(field) + " must not contain control or format characters");
    }
  }

  /**
   * Where the facts came from: the source's name and each field's position suffix in it.
   *
   * @param where field → ":line:col" in the source, when the source is a file
   */
  private record At(String source, Map<String, String> where) implements Fault {
    @Override
    public String subject(String field) {
      return "field '" + field + "'";
    }

    @Override
    public String key(String field) {
      return field;
    }

    /** "SOURCE:LINE:COL: WHAT", naming the field at fault. */
    @Override
    public HostFileException at(String field, String what) {
      return new HostFileException(source + where.getOrDefault(field, "") + ": " + what, field);
    }
  }
}
