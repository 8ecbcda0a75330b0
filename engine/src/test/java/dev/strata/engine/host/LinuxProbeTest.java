package dev.strata.engine.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The Linux probe on recorded /proc, /sys and /etc texts. */
class LinuxProbeTest {
  // Recorded on this project's build machine (AMD EPYC VM, 2 vCPUs, Debian 12).
  static final String EPYC_CPUINFO =
      """
      processor	: 0
      vendor_id	: AuthenticAMD
      cpu family	: 25
      model		: 1
      model name	: AMD EPYC
      stepping	: 1
      siblings	: 2
      cpu cores	: 2

      processor	: 1
      vendor_id	: AuthenticAMD
      model name	: AMD EPYC
      """;
  static final String EPYC_MEMINFO =
      """
      MemTotal:       24683656 kB
      MemFree:        24177544 kB
      MemAvailable:   24178396 kB
      """;
  static final String DEBIAN_OS_RELEASE =
      """
      PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
      NAME="Debian GNU/Linux"
      VERSION_ID="12"
      ID=debian
      """;
  static final String STATUS_0_1 =
      """
      Name:	java
      Cpus_allowed:	3
      Cpus_allowed_list:	0-1
      Mems_allowed_list:	0
      """;
  // The layouts of an arm64 board (RK3399-class: 4 LITTLE + 2 big, no "model name") and a
  // Raspberry Pi 4 on an older kernel, as their kernels print them.
  static final String RK3399_CPUINFO =
      """
      processor	: 0
      BogoMIPS	: 48.00
      Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid
      CPU implementer	: 0x41
      CPU architecture: 8
      CPU variant	: 0x0
      CPU part	: 0xd03
      CPU revision	: 4
      """;
  static final String PI4_CPUINFO =
      """
      processor	: 0
      BogoMIPS	: 108.00
      CPU implementer	: 0x41
      CPU part	: 0xd08
      Hardware	: BCM2835
      Revision	: c03114
      Model		: Raspberry Pi 4 Model B Rev 1.4
      """;

  @Test
  void cpuLists() {
    assertEquals(bits(0, 1), LinuxProbe.cpuList("0-1\n"));
    assertEquals(bits(0, 1, 2, 3, 8, 10, 11), LinuxProbe.cpuList("0-3,8,10-11"));
    assertEquals(bits(5), LinuxProbe.cpuList("5"));
    assertEquals(new BitSet(), LinuxProbe.cpuList(""));
    assertEquals(bits(0), LinuxProbe.cpuList("0,x-y,3-1"), "malformed parts add nothing");
  }

  @Test
  void memTotalIsKibTimes1024() {
    assertEquals(OptionalLong.of(24_683_656L * 1024), LinuxProbe.memTotalBytes(EPYC_MEMINFO));
    assertEquals(OptionalLong.empty(), LinuxProbe.memTotalBytes("MemFree: 1 kB\n"));
    assertEquals(OptionalLong.empty(), LinuxProbe.memTotalBytes("MemTotal: lots kB\n"));
  }

  @Test
  void cpuModelFromModelNameHardwareOrPart() {
    assertEquals(Optional.of("AMD EPYC"), LinuxProbe.cpuModel(EPYC_CPUINFO));
    assertEquals(Optional.of("BCM2835"), LinuxProbe.cpuModel(PI4_CPUINFO));
    assertEquals(Optional.of("ARM Cortex-A53"), LinuxProbe.cpuModel(RK3399_CPUINFO));
    assertEquals(
        Optional.of("arm CPU (implementer 0x61, part 0x039)"),
        LinuxProbe.cpuModel("CPU implementer\t: 0x61\nCPU part\t: 0x039\n"));
    assertEquals(Optional.empty(), LinuxProbe.cpuModel("processor\t: 0\n"));
  }

  /** {@code expected} (null: none) is the PRETTY_NAME of this os-release text. */
  private static void assertPrettyName(String expected, String osRelease) {
    assertEquals(Optional.ofNullable(expected), LinuxProbe.prettyName(osRelease), osRelease);
  }

  @Test
  void prettyNameUnquotes() {
    assertPrettyName("Debian GNU/Linux 12 (bookworm)", DEBIAN_OS_RELEASE);
    assertPrettyName("Ubuntu 24.04.1 LTS", "PRETTY_NAME='Ubuntu 24.04.1 LTS'\n");
    assertPrettyName("Plain", "NAME=x\nPRETTY_NAME=Plain\n");
    assertPrettyName("A \"quoted\" $name", "PRETTY_NAME=\"A \\\"quoted\\\" \\$name\"\n");
    assertPrettyName(null, "NAME=x\n");
  }

  @Test
  void capacityClasses() {
    assertArrayEquals(
        new int[] {2, 4}, LinuxProbe.capacitySplit(new TreeMap<>(Map.of(485, 4, 1024, 2)), 6));
    // prime + big + LITTLE: only the LITTLE class is efficiency
    assertArrayEquals(
        new int[] {5, 3},
        LinuxProbe.capacitySplit(new TreeMap<>(Map.of(1024, 1, 870, 4, 400, 3)), 8));
    assertArrayEquals(
        new int[] {2, 0}, LinuxProbe.capacitySplit(new TreeMap<>(Map.of(1024, 2)), 2));
    assertArrayEquals(new int[] {2, 0}, LinuxProbe.capacitySplit(new TreeMap<>(), 2));
  }

  @Test
  void recordedEpycTree(@TempDir Path root) throws IOException {
    write(root, "proc/self/status", STATUS_0_1);
    write(root, "proc/meminfo", EPYC_MEMINFO);
    write(root, "proc/cpuinfo", EPYC_CPUINFO);
    write(root, "etc/os-release", DEBIAN_OS_RELEASE);
    write(root, "sys/devices/system/cpu/online", "0-1\n");
    write(root, "sys/devices/system/cpu/cpu0/cpu_capacity", "1024\n");
    write(root, "sys/devices/system/cpu/cpu1/cpu_capacity", "1024\n");
    ProbeResult r = LinuxProbe.probe(root);
    assertEquals(
        new HostFacts(
            "linux",
            "AMD EPYC",
            2,
            2,
            0,
            24_683_656L * 1024,
            0,
            false,
            false,
            "Debian GNU/Linux 12 (bookworm)",
            0),
        r.facts());
    assertEquals(List.of(), r.notes());
    assertEquals(OptionalLong.empty(), r.recommendedMaxWorkingSet());
    // the memory available now: MemAvailable, beside MemTotal (not a host fact)
    assertEquals(
        new AvailableMemory(24_683_656L * 1024, 24_178_396L * 1024, "/proc/meminfo"),
        r.available());
  }

  @Test
  void noMemAvailableIsUnknownAndAMeminfoFileStandsIn(@TempDir Path root) throws IOException {
    write(root, "proc/meminfo", "MemTotal:       32596412 kB\n");
    assertEquals(null, LinuxProbe.probe(root).available(), "a kernel before 3.14");
    Path fake = root.resolve("fake-meminfo");
    Files.writeString(fake, "MemTotal: 1048576 kB\nMemAvailable: 262144 kB\n");
    AvailableMemory probed = new AvailableMemory(1L << 40, 1L << 39, "probe");
    AvailableMemory a =
        AvailableMemory.overridden(probed, Map.of(AvailableMemory.SOURCE_ENV, fake.toString()));
    assertEquals(new AvailableMemory(1L << 30, 1L << 28, fake.toString()), a);
    assertEquals(
        null, AvailableMemory.overridden(probed, Map.of(AvailableMemory.SOURCE_ENV, "/dev/null")));
    assertEquals(
        null,
        AvailableMemory.overridden(
            probed, Map.of(AvailableMemory.SOURCE_ENV, root.resolve("none").toString())));
  }

  @Test
  void intelHybridSplitsWithinTheAffinityMask(@TempDir Path root) throws IOException {
    // i7-12700H: 6 P cores with SMT (CPUs 0-11) + 8 E cores (12-19); the process may use 0-3,12-15.
    write(root, "proc/self/status", "Cpus_allowed_list:\t0-3,12-15\n");
    write(root, "sys/devices/system/cpu/online", "0-19\n");
    write(root, "sys/devices/cpu_core/cpus", "0-11\n");
    write(root, "sys/devices/cpu_atom/cpus", "12-19\n");
    write(root, "proc/meminfo", "MemTotal:       32596412 kB\n");
    write(root, "proc/cpuinfo", "model name\t: 12th Gen Intel(R) Core(TM) i7-12700H\n");
    write(root, "usr/lib/os-release", "PRETTY_NAME=\"Fedora Linux 41 (Workstation Edition)\"\n");
    HostFacts f = LinuxProbe.probe(root).facts();
    assertEquals(8, f.cpuCores());
    assertEquals(4, f.perfCores());
    assertEquals(4, f.efficiencyCores());
    assertEquals("Fedora Linux 41 (Workstation Edition)", f.osVersion());
  }

  @Test
  void armBigLittleByCapacity(@TempDir Path root) throws IOException {
    write(root, "sys/devices/system/cpu/online", "0-5\n");
    for (int cpu = 0; cpu < 6; cpu++) {
      write(
          root, "sys/devices/system/cpu/cpu" + cpu + "/cpu_capacity", cpu < 4 ? "485\n" : "1024\n");
    }
    write(root, "proc/meminfo", "MemTotal:        3969436 kB\n");
    write(root, "proc/cpuinfo", RK3399_CPUINFO);
    ProbeResult r = LinuxProbe.probe(root);
    assertEquals(6, r.facts().cpuCores());
    assertEquals(2, r.facts().perfCores());
    assertEquals(4, r.facts().efficiencyCores());
    assertEquals("ARM Cortex-A53", r.facts().chip());
    assertTrue(
        r.notes().getFirst().startsWith("no PRETTY_NAME in /etc/os-release"), r.notes().toString());
  }

  @Test
  void emptyTreeFallsBackWithNotes(@TempDir Path root) {
    ProbeResult r = LinuxProbe.probe(root);
    assertEquals(Runtime.getRuntime().availableProcessors(), r.facts().cpuCores());
    assertTrue(r.facts().memoryBytes() > 0);
    assertEquals("unknown", r.facts().chip());
    assertEquals(4, r.notes().size(), r.notes().toString());
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void liveProbeMatchesNprocAndMemTotal() throws Exception {
    ProbeResult r = LinuxProbe.probe();
    HostFacts f = r.facts();
    assertEquals("linux", f.os());
    assertFalse(f.k4() || f.metal4());
    assertEquals(0, f.gpuFamily());
    Process nproc = new ProcessBuilder("nproc").redirectErrorStream(true).start();
    String out = new String(nproc.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (nproc.waitFor() == 0 && System.getenv("OMP_NUM_THREADS") == null) {
      assertEquals(Integer.parseInt(out), f.cpuCores(), "cpu_cores = nproc");
    }
    // independent of the probe's parser: the "MemTotal:" line of proc(5), "<n> kB" meaning KiB
    long memTotal = -1;
    for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
      String[] w = line.trim().split("\\s+");
      if (w.length == 3 && w[0].equals("MemTotal:") && w[2].equals("kB")) {
        memTotal = Long.parseLong(w[1]) * 1024;
      }
    }
    assertTrue(memTotal > 0, "/proc/meminfo has a MemTotal line");
    assertEquals(memTotal, f.memoryBytes());
  }

  static BitSet bits(int... i) {
    BitSet b = new BitSet();
    for (int x : i) {
      b.set(x);
    }
    return b;
  }

  static void write(Path root, String rel, String text) throws IOException {
    Path p = root.resolve(rel);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }
}
