package dev.strata.engine.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.BitSet;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The Linux probe's parsers at their bounds (the kernel's formats: proc(5) cpu lists and meminfo,
 * os-release(5)'s shell quoting).
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
}
