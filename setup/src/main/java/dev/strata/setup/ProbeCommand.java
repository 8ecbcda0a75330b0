package dev.strata.setup;

import dev.strata.cli.CliOption;
import dev.strata.cli.CliSpec;
import dev.strata.cli.CliValues;
import dev.strata.cli.CommandNames;
import dev.strata.cli.HostFileOption;
import dev.strata.cli.Io;
import dev.strata.cli.JsonOption;
import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.host.GpuFamily;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostFactsCodec;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.host.ProbeResult;
import dev.strata.engine.plan.StandbySlots;
import dev.strata.engine.plan.UsableMemory;
import dev.strata.engine.text.ByteSize;
import dev.strata.engine.text.TerminalText;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code strata-setup probe}: what this machine is (issue 5), as a table that says what each fact
 * means for the engine, or as the host JSON ({@code --json}). {@code --host-file} shows a file or a
 * known Mac's profile instead of probing.
 */
@Command(
    name = CommandNames.PROBE,
    description = {
      "Show what this machine is (chip, cores, memory, GPU wired limit, Metal GPU family, Metal 4,"
          + " k4) and what each means for the engine.",
      "",
      "Exit codes: 0 success; 2 a bad host file or option (one line on stderr)."
    })
public final class ProbeCommand implements Callable<Integer> {

  @ParentCommand SetupCommand parent;

  static final CliOption<Boolean> LIST_HOSTS =
      CliOption.flag("--list-hosts", "List the known Mac profiles and exit.");

  /** The options of {@code probe}, in the order help lists them. */
  static final List<CliOption<?>> OPTIONS =
      List.of(JsonOption.OPTION, HostFileOption.OPTION, LIST_HOSTS);

  @Spec CommandSpec spec;

  private static final int LABEL = 12;
  private static final int VALUE = 22;

  @Override
  public Integer call() {
    Io io = parent.io();
    PrintWriter out = io.out();
    CliValues given = CliSpec.values(spec, OPTIONS);
    boolean json = given.on(JsonOption.OPTION);
    String hostFile = given.get(HostFileOption.OPTION);
    if (given.on(LIST_HOSTS)) {
      if (json || hostFile != null) {
        throw new StrataException(ExitCodes.USAGE, "probe: --list-hosts takes no other option");
      }
      out.println("Known Macs (use the name with --host-file):");
      for (HostProfiles.Profile p : HostProfiles.list()) {
        out.printf(Locale.ROOT, "  %-14s %s%n", p.name(), p.description());
      }
      out.flush();
      return ExitCodes.OK;
    }

    HostFacts facts;
    String source;
    List<String> notes;
    OptionalLong workingSet;
    if (hostFile != null) {
      HostProfiles.Loaded loaded = HostProfiles.open(hostFile, parent.machine().workingDir());
      facts = loaded.facts();
      source = loaded.source();
      notes = List.of();
      workingSet = OptionalLong.empty();
    } else {
      ProbeResult r = parent.machine().probe().apply(io.env());
      facts = r.facts();
      source =
          "probed ("
              + (!facts.isMac()
                  ? "/proc, /sys"
                  : r.gpuFromMetal() ? "sysctl + Metal" : "sysctl; GPU from the chip name")
              + ")";
      notes = r.notes();
      workingSet = r.recommendedMaxWorkingSet();
    }

    if (json) {
      out.print(HostFactsCodec.write(facts));
      out.flush();
      // stdout stays pure JSON: whatever the probe could not read goes to stderr.
      for (String n : notes) {
        io.err().println("strata-setup probe: note: " + TerminalText.escape(n));
      }
      io.err().flush();
      return ExitCodes.OK;
    }
    boolean color = io.colour();
    for (String line : table(facts, source, workingSet, notes)) {
      // a host file's path (its name is the user's) and every value: shown, never obeyed
      String shown = TerminalText.escape(line);
      out.println(color ? bold(shown) : shown);
    }
    out.flush();
    return ExitCodes.OK;
  }

  /** The table: a heading, one row per fact (label, value, meaning), then the notes. */
  static List<String> table(
      HostFacts f, String source, OptionalLong workingSet, List<String> notes) {
    List<String> lines = new ArrayList<>();
    lines.add("Host: " + source);
    lines.add(row("chip", f.chip(), ""));
    lines.add(
        row(
            "cores",
            f.cpuCores() + " (" + f.perfCores() + " P + " + f.efficiencyCores() + " E)",
            "--threads 0 (the default) runs on the "
                + f.perfCores()
                + " performance core"
                + (f.perfCores() == 1 ? "" : "s")));
    lines.add(
        row(
            "memory",
            ByteSize.iec(f.memoryBytes()),
            String.format(Locale.ROOT, "%,d bytes", f.memoryBytes())));
    if (f.isMac()) {
      UsableMemory usable = UsableMemory.of(f, Backend.METAL);
      String wired = f.wiredLimitMb() == 0 ? "OS default" : f.wiredLimitMb() + " MiB";
      String meaning =
          f.wiredLimitMb() == 0
              ? "≈ 2/3 or 3/4 of memory, here "
                  + (usable.rule() == UsableMemory.Rule.TWO_THIRDS ? "2/3" : "3/4")
                  + ": the Metal engine plans with "
                  + ByteSize.iec(usable.usableBytes())
              : "set by iogpu.wired_limit_mb: the Metal engine plans with "
                  + ByteSize.iec(usable.usableBytes());
      lines.add(row("wired limit", wired, meaning));
      if (workingSet.isPresent()) {
        lines.add(
            row(
                "working set",
                ByteSize.iec(workingSet.getAsLong()),
                "Metal's recommendedMaxWorkingSetSize on this Mac"));
      }
      lines.add(row("GPU family", familyName(f.gpuFamily()), familyMeaning(f.gpuFamily())));
      lines.add(
          row(
              "Metal 4",
              yesNo(f.metal4()),
              f.metal4()
                  ? "reports MTLGPUFamilyMetal4 (5002); that alone does not make k4"
                  : "no MTLGPUFamilyMetal4 (5002) reported"));
      StandbySlots slots = StandbySlots.decide(f, Backend.METAL, Map.of());
      lines.add(
          row(
              "k4",
              yesNo(f.k4()),
              f.k4()
                  ? "Apple10 (M5 class): prompts take the flash chain; the arena keeps "
                      + slots.slots()
                      + " stand-by slots"
                  : "prompts take the GEMM chain; the arena keeps "
                      + slots.slots()
                      + " stand-by slots"));
      lines.add(row("macOS", f.osVersion(), ""));
    } else {
      lines.add(
          row("wired limit", "n/a", "Linux: no GPU working-set limit; plans use whole memory"));
      lines.add(row("GPU family", "none", "not a Mac: strata-ref (CPU) stands in for the engine"));
      lines.add(row("Metal 4", "no", "no Metal on Linux"));
      lines.add(
          row(
              "k4",
              "no",
              "not a Mac; strata-ref plans like a !k4 Mac: GEMM chain, "
                  + StandbySlots.decide(f, Backend.CPU_REFERENCE, Map.of()).slots()
                  + " stand-by slots"));
      lines.add(row("OS", f.osVersion(), ""));
    }
    for (String n : notes) {
      lines.add("note: " + n);
    }
    return lines;
  }

  private static String row(String label, String value, String meaning) {
    String left = String.format(Locale.ROOT, "  %-" + LABEL + "s %s", label, value);
    if (meaning.isEmpty()) {
      return left;
    }
    String padded = String.format(Locale.ROOT, "%-" + (LABEL + VALUE + 3) + "s", left);
    return (padded.length() > left.length() ? padded : left + "  ") + meaning;
  }

  static String familyName(int family) {
    if (family == 0) {
      return "none";
    }
    return family + " (Apple" + (family - 1000) + ")";
  }

  private static String familyMeaning(int family) {
    if (family == 0) {
      return "no Apple GPU family: the Metal engine cannot run here";
    }
    return GpuFamily.of(family)
        .map(f -> f.meaning)
        .orElse("older than M1: below what the Metal engine targets");
  }

  private static String yesNo(boolean b) {
    return b ? "yes" : "no";
  }

  /** Bold for the row labels and the heading. */
  private static String bold(String line) {
    if (line.startsWith("Host: ")) {
      return "\u001b[1m" + line + "\u001b[0m";
    }
    if (line.startsWith("  ")) {
      int end = Math.min(line.length(), LABEL + 2);
      return "  \u001b[1m" + line.substring(2, end) + "\u001b[0m" + line.substring(end);
    }
    return line;
  }
}
