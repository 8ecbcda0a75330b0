package dev.strata.engine.host;

import java.util.List;
import java.util.OptionalLong;

/**
 * What a probe found.
 *
 * @param facts the host JSON facts, always valid ({@code HostFactsRules.check} passes)
 * @param notes one line per thing the probe could not read or had to assume; empty when all went
 *     well. A probe never fails on a missing value: it says so here.
 * @param recommendedMaxWorkingSet Metal's {@code recommendedMaxWorkingSetSize} in bytes (how much
 *     the GPU should keep resident), for the memory plan; empty off the Mac or when Metal failed
 * @param gpuFromMetal whether {@code gpu_family}, {@code metal4} and {@code k4} are what Metal
 *     answered (true off the Mac, where there is nothing to ask). False when the GPU probe was
 *     skipped ({@code STRATA_PROBE=sysctl-only}, an earlier run crashed in it, it timed out): the
 *     facts are then taken from the chip name, and strata-setup asks or takes {@code --gpu-family}.
 * @param available the memory available now (the launch's memory check); null when the probe could
 *     not read it, or the result is not this machine's (a host file, a profile)
 */
public record ProbeResult(
    HostFacts facts,
    List<String> notes,
    OptionalLong recommendedMaxWorkingSet,
    boolean gpuFromMetal,
    AvailableMemory available) {
  public ProbeResult {
    notes = List.copyOf(notes);
  }

  /** A result without the memory available now. */
  public ProbeResult(
      HostFacts facts,
      List<String> notes,
      OptionalLong recommendedMaxWorkingSet,
      boolean gpuFromMetal) {
    this(facts, notes, recommendedMaxWorkingSet, gpuFromMetal, null);
  }

  /** A result whose GPU facts need no asking (Linux, a host file, a test). */
  public ProbeResult(HostFacts facts, List<String> notes, OptionalLong recommendedMaxWorkingSet) {
    this(facts, notes, recommendedMaxWorkingSet, true, null);
  }

  /** The same result with {@code now} as the memory available now. */
  public ProbeResult withAvailable(AvailableMemory now) {
    return new ProbeResult(facts, notes, recommendedMaxWorkingSet, gpuFromMetal, now);
  }
}
