package dev.strata.setup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.cli.CliOption;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.host.GpuFamily;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.host.ProbeResult;
import dev.strata.metal.HostProbe;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the GPU probe could not run (docs/PROBE.md), the GPU family comes from --gpu-family, from
 * the wizard's question, or, without a terminal, from the chip name as the probe's note says.
 */
class GpuFamilyQuestionTest {
  static CliHarness h;

  static final String NOTE =
      "Metal: not asked (STRATA_PROBE=sysctl-only); gpu_family 1009, k4 no, metal4 yes taken"
          + " from the chip name 'Apple M4 Pro' (strata-setup --gpu-family changes it)";

  @BeforeAll
  static void model(@TempDir Path shared) throws IOException {
    h = new CliHarness(shared);
  }

  /** A probe whose GPU part was skipped: what MacProbe gives on the seed's Mac. */
  static CliHarness skipped(Path d, List<Map<String, String>> seen) throws IOException {
    CliHarness c = new CliHarness(d, h.model);
    c.probe =
        env -> {
          seen.add(env);
          return new ProbeResult(
              HostProfiles.load("m4-pro-48"), List.of(NOTE), OptionalLong.empty(), false);
        };
    return c;
  }

  @Test
  void theWizardAsksTheFamilyWithTheChipsAsDefault(@TempDir Path d) throws IOException {
    CliHarness c = skipped(d, new ArrayList<>());
    CliHarness.Run r = c.wizard("apple10\n\n\n\n\n\n", "--engine-lib", c.lib.toString());
    assertEquals(0, r.code(), r.err() + r.terminal());
    assertTrue(r.terminal().contains("GPU family"), r.terminal());
    assertTrue(r.terminal().contains("apple9"), r.terminal());
    assertTrue(r.err().startsWith("strata-setup: probe: " + NOTE + "\nlaunch it: "), r.err());
    HostFacts host = ConfigCodec.read(c.config).host();
    assertEquals(1010, host.gpuFamily());
    assertTrue(host.k4());
    assertEquals(HostProbe.withGpuFamily(HostProfiles.load("m4-pro-48"), 1010), host);
  }

  @Test
  void withoutATerminalTheChipsFamilyStands(@TempDir Path d) throws IOException {
    CliHarness c = skipped(d, new ArrayList<>());
    CliHarness.Run r = c.run(c.modelAndLib("--yes"));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().startsWith("strata-setup: probe: " + NOTE + "\nlaunch it: "), r.err());
    assertEquals(HostProfiles.load("m4-pro-48"), ConfigCodec.read(c.config).host());
  }

  @Test
  void probeTableSaysWhereTheGpuFactsCameFrom(@TempDir Path d) throws IOException {
    CliHarness c = skipped(d, new ArrayList<>());
    CliHarness.Run r = c.run("probe");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("Host: probed (sysctl; GPU from the chip name)\n"), r.out());
    assertTrue(r.out().contains("note: " + NOTE), r.out());
  }

  @Test
  void gpuFamilyFlagSkipsTheGpuProbeAndAnswersForIt(@TempDir Path d) throws IOException {
    List<Map<String, String>> seen = new ArrayList<>();
    CliHarness c = skipped(d, seen);
    CliHarness.Run r = c.run(c.modelAndLib("--gpu-family", "apple8", "--yes"));
    assertEquals(0, r.code(), r.err());
    // no Metal note (the flag answered for Metal): only what to run next
    assertTrue(
        r.err().lines().allMatch(l -> l.startsWith("launch it: ")),
        "no Metal note: the flag answered for Metal\n" + r.err());
    assertEquals("sysctl-only", seen.getFirst().get("STRATA_PROBE"));
    HostFacts host = ConfigCodec.read(c.config).host();
    assertEquals(1008, host.gpuFamily());
    assertFalse(host.k4());
    assertTrue(host.metal4(), "Apple8 on macOS 27");
  }

  @Test
  void badGpuFamilyUsesAreOneLineAndExit2(@TempDir Path d) throws IOException {
    CliHarness c = skipped(d, new ArrayList<>());
    CliHarness.Run bad = c.run("--model", c.model.toString(), "--gpu-family", "apple6", "--yes");
    assertEquals(2, bad.code());
    assertTrue(
        bad.err()
            .startsWith(
                "strata-setup: Invalid value for option '--gpu-family': 'apple6' is not a GPU"
                    + " family: use apple7 (M1), apple8 (M2), apple9 (M3, M4), apple10 (M5) or"
                    + " none"),
        bad.err());
    CliHarness.Run both =
        c.run(
            "--model",
            c.model.toString(),
            "--gpu-family",
            "apple9",
            "--host-file",
            "m4-pro-48",
            "--yes");
    assertEquals(2, both.code());
    assertEquals(
        "strata-setup: --gpu-family and --host-file do not go together: the host file gives"
            + " gpu_family (edit it, or drop --host-file to probe this Mac)\n",
        both.err());
    java.nio.file.Files.createDirectories(d.resolve("l"));
    CliHarness linux = new CliHarness(d.resolve("l"), h.model);
    linux.probe =
        e ->
            new ProbeResult(
                new HostFacts("linux", "AMD EPYC", 2, 2, 0, 8L << 30, 0, false, false, "Debian", 0),
                List.of(),
                OptionalLong.empty());
    CliHarness.Run onLinux = linux.run(linux.modelAndLib("--gpu-family", "apple9", "--yes"));
    assertEquals(2, onLinux.code(), onLinux.err());
    assertEquals(
        "strata-setup: --gpu-family is for a Mac: this machine is linux (drop --gpu-family)\n",
        onLinux.err());
  }

  /** The option's help is the one literal beside the table: it lists the table's families. */
  @Test
  void theOptionsHelpListsTheTablesFamilies() throws CliOption.Refused {
    String help = SetupOptions.GPU_FAMILY.help();
    assertTrue(help.contains(GpuFamily.listed() + " or none"), help);
    CliOption.Reader<Integer> read = SetupOptions.GPU_FAMILY.reader();
    assertEquals(
        "'apple6' is not a GPU family: use " + GpuFamily.listed() + " or none",
        assertThrows(CliOption.Refused.class, () -> read.read("apple6")).getMessage());
    for (GpuFamily f : GpuFamily.values()) {
      for (String typed :
          List.of(f.keyword(), Integer.toString(f.id), Integer.toString(f.id - 1000))) {
        assertEquals(f.id, read.read(typed), typed);
      }
    }
    assertEquals(0, read.read("none"));
  }
}
