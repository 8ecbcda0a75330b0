package dev.strata.engine.host;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * What the toolkit knows about a machine: the host JSON of DESIGN §5 ({@code probe --json} prints
 * it, {@code --host-file} reads it, a config embeds it under {@code host}). Field order is the JSON
 * order.
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
@JsonPropertyOrder({
  "os",
  "chip",
  "cpu_cores",
  "perf_cores",
  "efficiency_cores",
  "memory_bytes",
  "gpu_family",
  "metal4",
  "k4",
  "os_version",
  "wired_limit_mb"
})
public record HostFacts(
    @JsonProperty(value = "os", required = true) String os,
    @JsonProperty(value = "chip", required = true) String chip,
    @JsonProperty(value = "cpu_cores", required = true) int cpuCores,
    @JsonProperty(value = "perf_cores", required = true) int perfCores,
    @JsonProperty(value = "efficiency_cores", required = true) int efficiencyCores,
    @JsonProperty(value = "memory_bytes", required = true) long memoryBytes,
    @JsonProperty(value = "gpu_family", required = true) int gpuFamily,
    @JsonProperty(value = "metal4", required = true) boolean metal4,
    @JsonProperty(value = "k4", required = true) boolean k4,
    @JsonProperty(value = "os_version", required = true) String osVersion,
    @JsonProperty(value = "wired_limit_mb", required = true) long wiredLimitMb) {

  /** MTLGPUFamilyApple10: the M5 class, the first with the k4 matrix-unit layout. */
  public static final int FAMILY_APPLE10 = 1010;

  /** MTLGPUFamilyMetal4. */
  public static final int FAMILY_METAL4 = 5002;

  /** Derived, not a key: without @JsonIgnore Jackson would write it as a "mac" field. */
  @JsonIgnore
  public boolean isMac() {
    return "macos".equals(os);
  }
}
