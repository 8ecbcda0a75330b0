package dev.strata.metal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.host.ProbeResult;
import dev.strata.metal.objc.ObjC;
import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * MacProbe end to end through FFM on Linux: its own Sysctl, ObjC and MetalGpu code calls the Darwin
 * stand-in (metal/src/test/native), which answers as a Mac from a recorded profile and counts every
 * retain, release, pool push and pop. What this proves and what it cannot (it is not a Mac):
 * docs/PROBE.md, "The Darwin stand-in".
 */
class MacProbeStandinTest {
  @TempDir Path cache;

  static final MacProbe.Fallback FALLBACK = new MacProbe.Fallback(3, () -> 3L << 30, "fallback.0");

  ProbeResult probe(DarwinStandin s) {
    return probe(s, null, GpuProbeGuard.DEFAULT_TIMEOUT);
  }

  ProbeResult probe(DarwinStandin s, String mode, Duration timeout) {
    return MacProbe.probe(
        s.symbols(), new GpuProbeGuard(Optional.of(cache), timeout, mode), FALLBACK);
  }

  /** Every pool pushed was popped, nothing is left open, every object made was freed once. */
  static void assertBalanced(DarwinStandin s) {
    assertEquals(s.count("pushes"), s.count("pops"), "pool pushes and pops");
    assertEquals(0, s.count("depth"), "pools left open on this thread");
    assertEquals(0, s.count("bad_pops"), "pops of a token not on the stack");
    assertEquals(0, s.count("alive"), "objects never released (leaked)");
    assertEquals(0, s.count("overreleased"), "releases of objects not owned (or freed)");
    assertEquals(0, s.count("no_pool"), "objects autoreleased with no pool in place");
    assertEquals(0, s.count("unrecognized"), "selectors sent that the receiver does not have");
  }

  List<Path> markers() throws IOException {
    try (Stream<Path> l = Files.list(cache)) {
      return l.toList();
    }
  }

  @ParameterizedTest
  @CsvSource({"m1-8, 5726633984", "m4-pro-48, 38654705664", "m5-32, 25769803776"})
  void recordedMacsGiveTheirProfiles(String name, long workingSet) throws IOException {
    DarwinStandin s = DarwinStandin.get().load(name).set("objc.unrecognized", "record");
    ProbeResult r = probe(s);
    assertEquals(HostProfiles.load(name), r.facts());
    assertEquals(List.of(), r.notes());
    assertEquals(OptionalLong.of(workingSet), r.recommendedMaxWorkingSet());
    assertTrue(r.gpuFromMetal());
    assertEquals(name.equals("m5-32"), r.facts().k4(), "k4 only on the Apple10 family");
    assertEquals(1, s.count("devices"));
    assertTrue(s.count("pushes") >= 1);
    assertTrue(s.count("created") >= 2, "the device and its name string");
    assertBalanced(s);
    assertEquals(List.of(), markers(), "the marker is removed when the probe returns");
    // A size query, then a read, for each name but hw.physicalcpu (read only without perf levels);
    // the stand-in's profiles have no memory-now sysctls: the page size's query fails, and the
    // probe stops there (the figure is unknown).
    assertEquals(2L * (MacProbe.NAMES.size() - 1) + 1, s.count("sysctl_calls"));
    assertEquals(null, r.available());
  }

  @Test
  void noMetalDeviceIsGpuFamilyZeroWithANote() {
    DarwinStandin s = DarwinStandin.get().load("m4-pro-48").set("metal.device", "no");
    ProbeResult r = probe(s);
    assertEquals(0, r.facts().gpuFamily());
    assertFalse(r.facts().metal4() || r.facts().k4());
    assertEquals("Apple M4 Pro", r.facts().chip());
    assertEquals(
        List.of(
            "Metal: MTLCreateSystemDefaultDevice returned no device; gpu_family 0, metal4 and k4"
                + " reported false (pass --host-file NAME to plan for a known Mac)"),
        r.notes());
    assertTrue(r.gpuFromMetal(), "no device is Metal's answer, not a skipped probe");
    assertBalanced(s);
  }

  @Test
  void aDeviceWithoutSupportsFamilyIsNeverSentIt() {
    // Sending it would be an uncaught NSInvalidArgumentException on a Mac: the process would end.
    // Here the stand-in counts it instead of aborting, and the count must stay 0.
    DarwinStandin s =
        DarwinStandin.get()
            .load("m4-pro-48")
            .set("objc.unrecognized", "record")
            .set("metal.missing", "supportsFamily:");
    ProbeResult r = probe(s);
    assertEquals(0, r.facts().gpuFamily());
    assertTrue(
        r.notes().getFirst().startsWith("Metal: the device does not answer supportsFamily:"),
        r.notes().toString());
    assertBalanced(s);
  }

  @Test
  void aDeviceWithoutTheWorkingSetOrNameStillGivesItsFamily() {
    DarwinStandin s =
        DarwinStandin.get()
            .load("m5-32")
            .set("objc.unrecognized", "record")
            .set("metal.missing", "recommendedMaxWorkingSetSize")
            .set("metal.missing", "name");
    ProbeResult r = probe(s);
    assertEquals(HostProfiles.load("m5-32"), r.facts());
    assertEquals(OptionalLong.empty(), r.recommendedMaxWorkingSet());
    assertEquals(
        List.of("Metal: the device does not answer recommendedMaxWorkingSetSize"), r.notes());
    assertBalanced(s);
  }

  @Test
  void missingSysctlsFallBackAndSayWhich() {
    DarwinStandin s =
        DarwinStandin.get()
            .load("m4-pro-48")
            .set("objc.unrecognized", "record")
            .set("hw.memsize", "-")
            .set("machdep.cpu.brand_string", "-")
            .set("iogpu.wired_limit_mb", "-");
    ProbeResult r = probe(s);
    HostFacts f = r.facts();
    assertEquals(3L << 30, f.memoryBytes());
    assertEquals("Apple M4 Pro", f.chip(), "from the Metal device's name");
    assertEquals(0, f.wiredLimitMb());
    assertEquals(1009, f.gpuFamily());
    assertEquals(
        List.of(
            "hw.memsize unreadable: using the JVM's total memory, 3221225472 bytes",
            "machdep.cpu.brand_string unreadable: chip taken from the Metal device name 'Apple M4"
                + " Pro'"),
        r.notes());
    assertBalanced(s);
  }

  @Test
  void sysctlOnlyNeverTouchesMetalAndTakesTheFamilyFromTheChip() throws IOException {
    for (String name : List.of("m1-8", "m4-pro-48", "m5-32")) {
      DarwinStandin s = DarwinStandin.get().load(name);
      ProbeResult r = probe(s, GpuProbeGuard.SYSCTL_ONLY, GpuProbeGuard.DEFAULT_TIMEOUT);
      assertEquals(HostProfiles.load(name), r.facts(), name);
      assertFalse(r.gpuFromMetal());
      assertEquals(OptionalLong.empty(), r.recommendedMaxWorkingSet());
      assertEquals(1, r.notes().size(), r.notes().toString());
      assertTrue(
          r.notes()
              .getFirst()
              .startsWith("Metal: not asked (STRATA_PROBE=sysctl-only); gpu_family"),
          r.notes().getFirst());
      assertEquals(0, s.count("devices"), "no device created");
      assertEquals(0, s.count("sends"), "no message sent");
      assertEquals(0, s.count("pushes"));
      assertEquals(List.of(), markers());
    }
  }

  @Test
  void aHangIsBoundedAndLaterRunsSkipTheGpuProbe() throws Exception {
    DarwinStandin s = DarwinStandin.get().load("m4-pro-48").set("fault", "hang:supportsFamily:");
    try {
      ProbeResult r = probe(s, null, Duration.ofMillis(300));
      assertEquals(HostProfiles.load("m4-pro-48"), r.facts(), "from sysctl and the chip name");
      assertFalse(r.gpuFromMetal());
      assertEquals(1, r.notes().size(), r.notes().toString());
      assertTrue(
          r.notes().getFirst().startsWith("Metal: the GPU probe did not answer within 300 ms,"),
          r.notes().getFirst());
      List<Path> left = markers();
      assertEquals(1, left.size());
      assertTrue(Files.readString(left.getFirst()).contains("state=hung"));

      // The next run (this same process: the marker says hung) does not try again.
      ProbeResult next = probe(s, null, GpuProbeGuard.DEFAULT_TIMEOUT);
      assertEquals(HostProfiles.load("m4-pro-48"), next.facts());
      assertEquals(1, next.notes().size());
      assertTrue(
          next.notes()
              .getFirst()
              .startsWith("Metal: the GPU probe of an earlier run did not finish (pid "),
          next.notes().getFirst());
      assertTrue(next.notes().getFirst().contains("remove " + left.getFirst()));
      assertEquals(1, s.count("devices"), "only the hung run made a device");
    } finally {
      s.releaseHang();
    }
    // Let go, the hung query finishes on its own thread and balances what it opened.
    for (int i = 0; i < 500 && s.count("pops") < s.count("pushes"); i++) {
      Thread.sleep(10);
    }
    assertEquals(s.count("pushes"), s.count("pops"));
    assertEquals(0, s.count("alive"));
  }

  @Test
  void aMarkerOfAProcessThatIsGoneSkipsTheGpuProbe() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Path marker = cache.resolve("metal-probe-" + gone.pid() + ".marker");
    Files.writeString(
        marker,
        "pid=" + gone.pid() + "\nstarted=2026-11-30T09:00:00Z\nprocess_start=x\nstate=running\n");
    DarwinStandin s = DarwinStandin.get().load("m5-32");
    ProbeResult r = probe(s);
    assertEquals(HostProfiles.load("m5-32"), r.facts());
    assertEquals(0, s.count("devices"));
    assertEquals(
        List.of(
            "Metal: the GPU probe of an earlier run did not finish (pid "
                + gone.pid()
                + ", started 2026-11-30T09:00:00Z, crashed), so it is not run again; gpu_family"
                + " 1010, k4 yes, metal4 yes taken from the chip name 'Apple M5' (strata-setup"
                + " --gpu-family changes it); please report it with this line, the output of"
                + " 'strata-setup probe --json' and, if there is one, the hs_err_pid"
                + gone.pid()
                + ".log file the crash left where it ran (docs/PROBE.md); remove "
                + marker
                + " to try the GPU probe again"),
        r.notes());
    assertTrue(Files.exists(marker), "kept until the user removes it");
    Files.delete(marker);
    ProbeResult again = probe(s.load("m5-32"));
    assertTrue(again.gpuFromMetal());
    assertEquals(List.of(), again.notes());
  }

  @Test
  void aMarkerOfARunningProbeIsNotACrash() throws IOException {
    ProcessHandle self = ProcessHandle.current();
    Path other = cache.resolve("metal-probe-" + self.pid() + ".marker");
    Files.writeString(
        other,
        "pid="
            + self.pid()
            + "\nstarted=2026-11-30T09:00:00Z\nprocess_start="
            + self.info().startInstant().orElseThrow()
            + "\nstate=running\n");
    DarwinStandin s = DarwinStandin.get().load("m1-8");
    ProbeResult r = probe(s);
    assertTrue(r.gpuFromMetal());
    assertEquals(List.of(), r.notes());
  }

  @Test
  void aMarkerWhosePidWasReusedIsACrash() throws IOException {
    // The pid runs (it is this JVM) but started at another time than the marker's process did.
    ProcessHandle self = ProcessHandle.current();
    Files.writeString(
        cache.resolve("metal-probe-" + self.pid() + ".marker"),
        "pid="
            + self.pid()
            + "\nstarted=2026-11-30T09:00:00Z\nprocess_start=2000-01-01T00:00:00Z\nstate=running\n");
    DarwinStandin s = DarwinStandin.get().load("m1-8");
    ProbeResult r = probe(s);
    assertFalse(r.gpuFromMetal());
    assertEquals(0, s.count("devices"));
    assertEquals(HostProfiles.load("m1-8"), r.facts());
  }

  @Test
  void aCacheFolderThatCannotHoldTheMarkerStillProbesAndSaysHowToSkip() throws IOException {
    Path notAFolder = cache.resolve("file");
    Files.writeString(notAFolder, "x");
    DarwinStandin s = DarwinStandin.get().load("m4-pro-48");
    ProbeResult r =
        MacProbe.probe(
            s.symbols(),
            new GpuProbeGuard(
                Optional.of(notAFolder.resolve("strata")), GpuProbeGuard.DEFAULT_TIMEOUT, null),
            FALLBACK);
    assertTrue(r.gpuFromMetal());
    assertEquals(HostProfiles.load("m4-pro-48"), r.facts());
    assertEquals(1, r.notes().size(), r.notes().toString());
    assertTrue(r.notes().getFirst().startsWith("Metal: cannot write the probe marker in "));
    assertTrue(r.notes().getFirst().endsWith("if it crashes, run with STRATA_PROBE=sysctl-only"));
    ProbeResult noHome =
        MacProbe.probe(
            s.symbols(),
            new GpuProbeGuard(Optional.empty(), GpuProbeGuard.DEFAULT_TIMEOUT, null),
            FALLBACK);
    assertTrue(noHome.gpuFromMetal());
    assertTrue(noHome.notes().getFirst().startsWith("Metal: no cache folder (HOME is not set)"));
    assertBalanced(s);
  }

  @Test
  void aProbeModeOtherThanSysctlOnlyIsExit2WithoutEchoingIt() {
    dev.strata.engine.StrataException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            dev.strata.engine.StrataException.class,
            () -> HostProbe.probe(java.util.Map.of("STRATA_PROBE", "full\u001b[31m")));
    assertEquals(2, e.exitCode());
    assertEquals(
        "STRATA_PROBE is set to something other than sysctl-only: use STRATA_PROBE=sysctl-only"
            + " (skip the Metal query) or unset it",
        e.getMessage());
  }

  @Test
  void objcMsgSendHandsEveryArgumentOverUntouched() throws Throwable {
    // Eight integer and nine double arguments after (self, _cmd): on x86-64 and arm64 some go on
    // the
    // stack. The trampoline must not disturb registers or stack.
    DarwinStandin s = DarwinStandin.get().load("m1-8");
    ObjC objc = ObjC.bind(s.lookup());
    List<MemoryLayout> args = new ArrayList<>(List.of(ADDRESS, ADDRESS));
    args.addAll(Collections.nCopies(8, JAVA_LONG));
    args.addAll(Collections.nCopies(9, JAVA_DOUBLE));
    var mix = objc.msgSend(FunctionDescriptor.of(JAVA_DOUBLE, args.toArray(MemoryLayout[]::new)));
    MemorySegment o = s.newArgs();
    double got =
        (double)
            mix.invokeExact(
                o,
                objc.sel("mixA:b:c:d:e:f:g:h:x:x:x:x:x:x:x:x:x:"),
                1L,
                2L,
                3L,
                4L,
                5L,
                6L,
                7L,
                8L,
                0.5,
                0.25,
                0.125,
                1.0,
                2.0,
                3.0,
                4.0,
                5.0,
                6.0);
    assertEquals(204 + 0.5 + 0.5 + 0.375 + 4 + 10 + 18 + 28 + 40 + 54, got);
    objc.release(o);
    assertEquals(0, s.count("alive"));
    // A nil receiver answers 0 without a lookup, as Apple's objc_msgSend does.
    long sends = s.count("sends");
    long nil =
        (long)
            objc.msgSend(MetalGpu.UINT64_GETTER)
                .invokeExact(MemorySegment.NULL, objc.sel("recommendedMaxWorkingSetSize"));
    assertEquals(0, nil);
    assertEquals(sends, s.count("sends"));
  }

  @Test
  void theStandInCatchesTheMistakesItIsThereToCatch() throws Throwable {
    // The checks above can fail: a BOOL read as an int, a string released that was not owned, a
    // pool never popped all show up.
    DarwinStandin s = DarwinStandin.get().load("m4-pro-48");
    ObjC objc = ObjC.bind(s.lookup());
    MemorySegment pool = objc.pushPool();
    MemorySegment device = MetalGpu.bind(s.symbols()).createSystemDefaultDevice();
    int wide =
        (int)
            objc.msgSend(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG))
                .invokeExact(device, objc.sel("supportsFamily:"), 1009L);
    assertNotEquals(1, wide, "BOOL read as int: the bits above the byte are not zero");
    byte right =
        (byte)
            objc.msgSend(MetalGpu.SUPPORTS_FAMILY)
                .invokeExact(device, objc.sel("supportsFamily:"), 1009L);
    assertEquals(1, right);
    MemorySegment name =
        (MemorySegment) objc.msgSend(MetalGpu.POINTER_GETTER).invokeExact(device, objc.sel("name"));
    objc.release(name); // not ours: the pool releases it again
    objc.release(device);
    assertEquals(1, s.count("depth"));
    objc.popPool(pool);
    assertEquals(1, s.count("overreleased"));
    assertEquals(0, s.count("depth"));
    assertEquals(JAVA_BYTE, MetalGpu.SUPPORTS_FAMILY.returnLayout().orElseThrow());
  }
}
