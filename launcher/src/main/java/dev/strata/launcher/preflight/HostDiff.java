package dev.strata.launcher.preflight;

import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.text.ByteSize;
import java.util.ArrayList;
import java.util.List;

/**
 * How the machine a config was made for differs from this one, in the facts the plan and the engine
 * depend on: OS, chip, cores, memory, GPU family and k4. The OS version and the wired limit change
 * with updates and settings, so they are not a different machine.
 */
public final class HostDiff {
  private HostDiff() {}

  /**
   * The {@code --host-file} that plans a config for its own Mac here: {@code --host-file m4-pro-48
   * (the profile of the config's host)} when a known profile (templates/hosts/) is that machine by
   * {@link #describe}, else {@code --host-file with the Mac's profile (strata-setup probe
   * --list-hosts) or its host file}.
   */
  public static String profileHint(HostFacts config) {
    if (config != null) {
      for (HostProfiles.Profile p : HostProfiles.list()) {
        HostFacts facts = HostProfiles.profile(p.name()).orElse(null);
        if (facts != null && describe(config, facts) == null) {
          return "--host-file " + p.name() + " (the profile of the config's host)";
        }
      }
    }
    return "--host-file with the Mac's profile (strata-setup probe --list-hosts) or its host file";
  }

  /** One line listing the differences, or null when the two are the same machine for the plan. */
  public static String describe(HostFacts config, HostFacts here) {
    if (config == null) {
      return "the config has no host";
    }
    List<String> d = new ArrayList<>();
    if (!config.os().equals(here.os())) {
      d.add("os " + config.os() + " → " + here.os());
    }
    if (!config.chip().equals(here.chip())) {
      d.add("chip " + config.chip() + " → " + here.chip());
    }
    if (config.memoryBytes() != here.memoryBytes()) {
      d.add(
          "memory "
              + ByteSize.iec(config.memoryBytes())
              + " → "
              + ByteSize.iec(here.memoryBytes())
              + (here.memoryBytes() < config.memoryBytes() ? " (less)" : ""));
    }
    if (config.perfCores() != here.perfCores()
        || config.efficiencyCores() != here.efficiencyCores()) {
      d.add(
          "cores "
              + config.perfCores()
              + "P+"
              + config.efficiencyCores()
              + "E → "
              + here.perfCores()
              + "P+"
              + here.efficiencyCores()
              + "E");
    }
    if (config.gpuFamily() != here.gpuFamily()) {
      d.add("GPU family " + config.gpuFamily() + " → " + here.gpuFamily());
    }
    if (config.k4() != here.k4()) {
      d.add("k4 " + config.k4() + " → " + here.k4());
    }
    return d.isEmpty() ? null : String.join(", ", d);
  }
}
