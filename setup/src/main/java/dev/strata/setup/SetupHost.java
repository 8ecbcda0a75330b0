package dev.strata.setup;

import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.host.GpuFamily;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.host.ProbeResult;
import dev.strata.metal.HostProbe;
import dev.strata.setup.prompt.Prompter;
import dev.strata.setup.prompt.Question;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The host a config is for, as {@link SetupFlow} settles it: a host file or profile ({@code
 * --host-file}), else this machine's probe (with {@code --gpu-family} answering for Metal), and the
 * GPU family asked on a terminal when the GPU probe was skipped.
 */
final class SetupHost {
  private final Io io;
  private final Machine machine;

  SetupHost(Io io, Machine machine) {
    this.io = io;
    this.machine = machine;
  }

  /** Whether the GPU facts of the probed host still need an answer (the GPU probe was skipped). */
  private boolean gpuUnknown;

  HostProfiles.Loaded load(String hostFileOrName, Integer gpuFamily) {
    if (hostFileOrName != null) {
      if (gpuFamily != null) {
        throw new StrataException(
            ExitCodes.USAGE,
            "--gpu-family and --host-file do not go together: the host file gives gpu_family"
                + " (edit it, or drop --host-file to probe this Mac)");
      }
      return HostProfiles.open(hostFileOrName, machine.workingDir());
    }
    Map<String, String> env = io.env();
    if (gpuFamily != null) {
      // The user says what Metal would: its query is not run at all.
      env = new HashMap<>(env);
      env.put(HostProbe.PROBE_ENV, HostProbe.SYSCTL_ONLY);
    }
    // --gpu-family answers for Metal: its notes are not the user's news then
    ProbeResult probed =
        machine.probeAndSay(
            io, "strata-setup", env, note -> gpuFamily == null || !note.startsWith("Metal: "));
    HostFacts facts = probed.facts();
    if (gpuFamily != null) {
      if (!facts.isMac()) {
        throw new StrataException(
            ExitCodes.USAGE,
            "--gpu-family is for a Mac: this machine is " + facts.os() + " (drop --gpu-family)");
      }
      facts = HostProbe.withGpuFamily(facts, gpuFamily);
    }
    gpuUnknown = !probed.gpuFromMetal() && gpuFamily == null && facts.isMac();
    return new HostProfiles.Loaded(facts, "probed");
  }

  /**
   * When the GPU probe was skipped and no --gpu-family was given: the wizard asks (default from the
   * chip name, which the probe already took); without a terminal the chip name's family stands, as
   * the probe's note said.
   */
  HostProfiles.Loaded gpuFamilyAnswered(HostProfiles.Loaded host, Prompter prompter) {
    if (!gpuUnknown || prompter == null) {
      return host;
    }
    HostFacts f = host.facts();
    List<Question.Option<Integer>> options = new ArrayList<>();
    for (GpuFamily g : GpuFamily.values()) {
      options.add(new Question.Option<>(g.keyword(), g.wizardText, g.id));
    }
    options.add(new Question.Option<>("none", "no Apple GPU (an Intel Mac): Metal cannot run", 0));
    int guess = HostProbe.gpuFamilyOfChip(f.chip());
    int def = options.size() - 1; // none
    for (int i = 0; i < options.size(); i++) {
      if (options.get(i).value() == guess) {
        def = i;
      }
    }
    int answer =
        prompter.ask(
            new Question.Choice<>(
                "--gpu-family",
                "GPU family",
                List.of(
                    "",
                    "GPU family — Metal was not asked on this run (see the probe line above);"
                        + " the chip is "
                        + f.chip()
                        + "."),
                options,
                def));
    return new HostProfiles.Loaded(HostProbe.withGpuFamily(f, answer), host.source());
  }
}
