package dev.strata.metal;

import static dev.strata.testsupport.TextAssertions.assertContainsAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.host.ProbeResult;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The Mac probe's assembly from sysctl buffers in the kernel's layout (CTLTYPE_INT 4 bytes,
 * CTLTYPE_QUAD 8 bytes, little-endian; strings NUL-terminated, the NUL counted in the size). The
 * buffers are built to that layout here, not captured on a Mac: no Mac was available.
 */
class MacProbeTest {
  static byte[] i32(int v) {
    return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
  }

  static byte[] i64(long v) {
    return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
  }

  static byte[] str(String s) {
    return (s + "\0").getBytes(StandardCharsets.UTF_8);
  }

  /** An M4 Pro 48 GB on macOS 27.0.1, as its sysctls answer. */
  static Map<String, byte[]> m4Pro() {
    Map<String, byte[]> m = new HashMap<>();
    m.put("hw.ncpu", i32(14));
    m.put("hw.memsize", i64(48L << 30));
    m.put("hw.nperflevels", i32(2));
    m.put("hw.perflevel0.physicalcpu", i32(10));
    m.put("hw.perflevel1.physicalcpu", i32(4));
    m.put("hw.physicalcpu", i32(14));
    m.put("machdep.cpu.brand_string", str("Apple M4 Pro"));
    m.put("kern.osproductversion", str("27.0.1"));
    m.put("iogpu.wired_limit_mb", i32(0));
    return m;
  }

  static final MacProbe.Fallback NEVER =
      new MacProbe.Fallback(
          3,
          () -> {
            throw new AssertionError("fallback memory asked");
          },
          "fallback");

  static ProbeResult run(Map<String, byte[]> sysctls, GpuReport gpu) {
    return MacProbe.assemble(n -> Optional.ofNullable(sysctls.get(n)), () -> gpu, NEVER);
  }

  static GpuReport apple(int top) {
    return GpuReport.from(GpuReportTest.families(top, true)::contains, 36L << 30);
  }

  @Test
  void m4ProGivesTheSeedMachinesProfile() {
    ProbeResult r = run(m4Pro(), apple(1009));
    assertEquals(HostProfiles.load("m4-pro-48"), r.facts());
    assertEquals(List.of(), r.notes());
    assertEquals(OptionalLong.of(36L << 30), r.recommendedMaxWorkingSet());
  }

  @Test
  void m5IsK4() {
    Map<String, byte[]> m = m4Pro();
    m.put("hw.ncpu", i32(10));
    m.put("hw.memsize", i64(32L << 30));
    m.put("hw.perflevel0.physicalcpu", i32(4));
    m.put("hw.perflevel1.physicalcpu", i32(6));
    m.put("machdep.cpu.brand_string", str("Apple M5"));
    assertEquals(HostProfiles.load("m5-32"), run(m, apple(1010)).facts());
  }

  @Test
  void wiredLimitAbsentZeroOrSet() {
    Map<String, byte[]> m = m4Pro();
    m.remove("iogpu.wired_limit_mb"); // older macOS: the name does not exist
    ProbeResult absent = run(m, apple(1009));
    assertEquals(0, absent.facts().wiredLimitMb());
    assertEquals(
        List.of(), absent.notes(), "an absent wired limit is the OS default, not a problem");
    m.put("iogpu.wired_limit_mb", i32(40960));
    assertEquals(40960, run(m, apple(1009)).facts().wiredLimitMb());
    m.put("iogpu.wired_limit_mb", i32(999_999));
    ProbeResult tooBig = run(m, apple(1009));
    assertEquals(0, tooBig.facts().wiredLimitMb());
    assertTrue(tooBig.notes().getFirst().startsWith("iogpu.wired_limit_mb is 999999"));
  }

  @Test
  void intelMacHasNoPerformanceLevelsAndNoAppleGpu() {
    Map<String, byte[]> m = new HashMap<>();
    m.put("hw.ncpu", i32(16));
    m.put("hw.physicalcpu", i32(8));
    m.put("hw.memsize", i64(32L << 30));
    m.put("machdep.cpu.brand_string", str("Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz"));
    m.put("kern.osproductversion", str("15.7"));
    ProbeResult r = run(m, GpuReport.from(java.util.Set.of(2002, 3001, 4001)::contains, 1L << 30));
    HostFacts f = r.facts();
    assertEquals(16, f.cpuCores());
    assertEquals(8, f.perfCores());
    assertEquals(0, f.efficiencyCores());
    assertEquals(0, f.gpuFamily());
    assertFalse(f.metal4() || f.k4());
    assertEquals("Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz", f.chip());
    assertEquals(List.of(), r.notes());
  }

  @Test
  void nothingReadableStillGivesValidFactsAndSaysWhy() {
    ProbeResult r =
        MacProbe.assemble(
            n -> {
              throw new IllegalStateException("sysctlbyname is not available on this system");
            },
            () -> {
              throw new IllegalStateException("boom");
            },
            new MacProbe.Fallback(4, () -> 8L << 30, "27.1"));
    HostFacts f = r.facts();
    assertEquals(
        new HostFacts("macos", "unknown", 4, 4, 0, 8L << 30, 0, false, false, "27.1", 0), f);
    String all = String.join("\n", r.notes());
    assertContainsAll(
        all,
        "hw.ncpu",
        "hw.memsize unreadable",
        "machdep.cpu.brand_string",
        "Metal: the query failed (boom)");
  }

  @Test
  void badBuffersBecomeNotesNotCrashes() {
    Map<String, byte[]> m = m4Pro();
    m.put("hw.nperflevels", new byte[] {2}); // a 1-byte answer: not an integer sysctl
    ProbeResult r = run(m, GpuReport.none("no device"));
    assertEquals(14, r.facts().cpuCores());
    assertEquals(14, r.facts().perfCores());
    assertEquals(0, r.facts().efficiencyCores());
    assertTrue(
        r.notes().stream()
            .anyMatch(n -> n.startsWith("hw.nperflevels: an integer sysctl is 4 or 8")));
    assertTrue(r.notes().stream().anyMatch(n -> n.startsWith("Metal: no device;")));
  }

  @Test
  void levelsThatDoNotFitTheCpuCountAreAllPerformance() {
    Map<String, byte[]> m = m4Pro();
    m.put("hw.perflevel0.physicalcpu", i32(12)); // 12 + 4 > 14
    ProbeResult r = run(m, apple(1009));
    assertEquals(14, r.facts().perfCores());
    assertEquals(0, r.facts().efficiencyCores());
    assertEquals(
        List.of(
            "performance levels (12 P + 4 E) do not fit 14 CPUs: reporting all as performance cores"),
        r.notes());
  }

  @Test
  @org.junit.jupiter.api.condition.DisabledOnOs(org.junit.jupiter.api.condition.OS.MAC)
  void offTheMacTheRealNativeCallsFailIntoNotes(@org.junit.jupiter.api.io.TempDir Path cache) {
    // The real Sysctl and MetalGpu, where libSystem's sysctlbyname and libobjc do not exist: the
    // probe must still return valid facts, with the failures as notes.
    ProbeResult r =
        MacProbe.probe(
            MacSymbols.darwin(),
            new GpuProbeGuard(Optional.of(cache), GpuProbeGuard.DEFAULT_TIMEOUT, null),
            MacProbe.Fallback.jvm());
    assertEquals(Runtime.getRuntime().availableProcessors(), r.facts().cpuCores());
    assertEquals(0, r.facts().gpuFamily());
    assertTrue(
        r.notes().stream().anyMatch(n -> n.startsWith("Metal: cannot load Metal")),
        r.notes().toString());
    assertTrue(r.notes().stream().anyMatch(n -> n.startsWith("hw.ncpu")), r.notes().toString());
  }

  @Test
  void memoryAvailableNowIsFreeSpeculativePurgeableAndFileBackedPages() {
    Map<String, byte[]> m = m4Pro();
    assertEquals(null, run(m, apple(1009)).available(), "no vm.page_* sysctls: unknown");
    m.put("hw.pagesize", i64(16_384));
    m.put("vm.page_free_count", i32(100_000));
    m.put("vm.page_speculative_count", i32(20_000));
    m.put("vm.page_purgeable_count", i32(5_000));
    m.put("vm.page_pageable_external_count", i32(75_000));
    assertEquals(
        new dev.strata.engine.host.AvailableMemory(
            48L << 30, 200_000L * 16_384, "sysctl vm.page_*_count"),
        run(m, apple(1009)).available());
    m.remove("vm.page_purgeable_count");
    assertEquals(null, run(m, apple(1009)).available(), "one count missing: unknown");
  }

  @Test
  void readsOnlyTheDocumentedNames() {
    java.util.Set<String> asked = new java.util.TreeSet<>();
    MacProbe.assemble(
        n -> {
          asked.add(n);
          return Optional.ofNullable(m4Pro().get(n));
        },
        () -> apple(1009),
        NEVER);
    java.util.Set<String> documented = new java.util.TreeSet<>(MacProbe.NAMES);
    documented.addAll(MacProbe.MEMORY_NOW_NAMES);
    assertTrue(documented.containsAll(asked), asked.toString());
  }
}
