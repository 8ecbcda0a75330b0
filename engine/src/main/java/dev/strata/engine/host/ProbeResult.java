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
 */
public record ProbeResult(
    HostFacts facts, List<String> notes, OptionalLong recommendedMaxWorkingSet) {
  public ProbeResult {
    notes = List.copyOf(notes);
  }
}
