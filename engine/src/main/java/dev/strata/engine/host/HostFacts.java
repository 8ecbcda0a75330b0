package dev.strata.engine.host;

/**
 * What the toolkit knows about a machine: the host JSON of docs/PROBE.md ({@code probe --json}
 * prints it, {@code --host-file} reads it, a config embeds it under {@code host}). Component order
 * is the JSON order; each key is the component's name in snake_case ({@link HostKeys}).
 *
 * @param os "macos" or "linux"
 * @param chip the CPU brand, e.g. "Apple M4 Pro"
 * @param cpuCores logical CPUs
 * @param perfCores performance cores
 * @param efficiencyCores efficiency cores (0 where the machine has no split)
 * @param memoryBytes physical (unified) memory
 * @param gpuFamily highest Apple GPU family (1001–1010), 0 when none
 * @param metal4 the GPU reports the Metal 4 family (5002)
 * @param k4 the GPU supports MTLGPUFamilyApple10 (1010, M5 class)
 * @param osVersion e.g. "27.0.1" or "Debian GNU/Linux 12 (bookworm)"
 * @param wiredLimitMb iogpu.wired_limit_mb, 0 for the OS default
 */
public record HostFacts(
    String os,
    String chip,
    int cpuCores,
    int perfCores,
    int efficiencyCores,
    long memoryBytes,
    int gpuFamily,
    boolean metal4,
    boolean k4,
    String osVersion,
    long wiredLimitMb) {

  /** MTLGPUFamilyApple10: the M5 class, the first with the k4 matrix-unit layout. */
  public static final int FAMILY_APPLE10 = 1010;

  /** MTLGPUFamilyMetal4. */
  public static final int FAMILY_METAL4 = 5002;

  /** Derived, not a key (the keys are the components: {@link HostKeys}). */
  public boolean isMac() {
    return "macos".equals(os);
  }
}
