package dev.strata.engine.host;

import static dev.strata.engine.host.LinuxProbeTest.write;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Linux probe's parsers at their bounds (the kernel's formats: proc(5) cpu lists and meminfo,
 * os-release(5)'s shell quoting), and the probe's CPU count and performance/efficiency split on
 * recorded trees at the edges of its rules.
 */
class LinuxProbeEdgesTest {

  @Test
  void cpuListsAtTheirBounds() {
    BitSet zero = new BitSet();
    zero.set(0);
    assertEquals(zero, LinuxProbe.cpuList("0"));
    BitSet three = new BitSet();
    three.set(3);
    assertEquals(three, LinuxProbe.cpuList("3-3"));
    BitSet last = new BitSet();
    last.set(65535);
    assertEquals(last, LinuxProbe.cpuList("65535"));
    assertEquals(new BitSet(), LinuxProbe.cpuList("65536"), "CPU numbers stop at 65535");
    assertEquals(65536, LinuxProbe.cpuList("0-65535").cardinality());
    assertEquals(new BitSet(), LinuxProbe.cpuList("0-65536"));
    assertEquals(new BitSet(), LinuxProbe.cpuList("-1"));
  }

  @Test
  void memTotalAtItsBounds() {
    assertEquals(OptionalLong.of(1024), LinuxProbe.memTotalBytes("MemTotal: 1 kB\n"));
    assertEquals(OptionalLong.of(2048), LinuxProbe.memTotalBytes("MemTotal: 2048\n"));
    assertEquals(OptionalLong.empty(), LinuxProbe.memTotalBytes("MemTotal: 0 kB\n"));
    long most = Long.MAX_VALUE / 1024; // 9007199254740991 KiB still fits a long of bytes
    assertEquals(
        OptionalLong.of(most * 1024), LinuxProbe.memTotalBytes("MemTotal: " + most + " kB\n"));
    assertEquals(
        OptionalLong.empty(), LinuxProbe.memTotalBytes("MemTotal: " + (most + 1) + " kB\n"));
  }

  @Test
  void emptyQuotedNamesAndATrailingBackslash() {
    assertEquals(Optional.of(""), LinuxProbe.prettyName("PRETTY_NAME=\"\"\n"));
    assertEquals(Optional.of(""), LinuxProbe.prettyName("PRETTY_NAME=''\n"));
    assertEquals(Optional.of("\""), LinuxProbe.prettyName("PRETTY_NAME=\"\n"));
    assertEquals(Optional.of("a\\"), LinuxProbe.prettyName("PRETTY_NAME=\"a\\\"\n"));
    assertEquals(Optional.of("a\\b"), LinuxProbe.prettyName("PRETTY_NAME=\"a\\b\"\n"));
  }

  /** A recorded tree with memory, a CPU model and an os-release, plus {@code cpus} as online. */
  private static Path tree(Path root, String online) throws IOException {
    write(root, "sys/devices/system/cpu/online", online + "\n");
    write(root, "proc/meminfo", "MemTotal:       32596412 kB\n");
    write(root, "proc/cpuinfo", "model name\t: 12th Gen Intel(R) Core(TM) i7-12700H\n");
    write(root, "etc/os-release", "PRETTY_NAME=\"Fedora Linux 41\"\n");
    return root;
  }

  private static HostFacts probe(Path root) {
    return LinuxProbe.probe(root).facts();
  }

  @Test
  void cpusTheMaskAllowsButThatAreOfflineAreNotCounted(@TempDir Path root) throws IOException {
    // a VM's mask commonly names every possible CPU (0-63); only 8 are online
    write(tree(root, "0-7"), "proc/self/status", "Cpus_allowed_list:\t0-63\n");
    assertEquals(8, probe(root).cpuCores());
  }

  @Test
  void oneHybridPerformanceCpuInTheMaskIsStillASplit(@TempDir Path root) throws IOException {
    write(tree(root, "0-19"), "proc/self/status", "Cpus_allowed_list:\t0,12-15\n");
    write(root, "sys/devices/cpu_core/cpus", "0-11\n");
    write(root, "sys/devices/cpu_atom/cpus", "12-19\n");
    HostFacts f = probe(root);
    assertEquals(5, f.cpuCores());
    assertEquals(1, f.perfCores());
    assertEquals(4, f.efficiencyCores());
  }

  @Test
  void overlappingHybridListsAreNotTrusted(@TempDir Path root) throws IOException {
    // P + E would be 8 of 6 CPUs: the lists are not used, and without capacities all 6 are P
    write(tree(root, "0-5"), "sys/devices/cpu_core/cpus", "0-3\n");
    write(root, "sys/devices/cpu_atom/cpus", "2-5\n");
    HostFacts f = probe(root);
    assertEquals(6, f.perfCores());
    assertEquals(0, f.efficiencyCores());
  }

  @Test
  void oneUnreadableCapacityMeansAllPerformance(@TempDir Path root) throws IOException {
    tree(root, "0-5");
    for (int cpu = 0; cpu < 5; cpu++) {
      write(
          root, "sys/devices/system/cpu/cpu" + cpu + "/cpu_capacity", cpu < 4 ? "485\n" : "1024\n");
    }
    write(root, "sys/devices/system/cpu/cpu5/cpu_capacity", "");
    HostFacts f = probe(root);
    assertEquals(6, f.perfCores());
    assertEquals(0, f.efficiencyCores());
  }
}
