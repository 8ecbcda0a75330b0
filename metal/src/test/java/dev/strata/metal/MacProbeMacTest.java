package dev.strata.metal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.ProbeResult;
import dev.strata.metal.objc.ObjC;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The live Mac probe. Runs only on macOS; it has not been run on the machines of this project. */
@EnabledOnOs(OS.MAC)
class MacProbeMacTest {
  @Test
  void sysctlAnswersTheBasics() {
    assertTrue(SysctlValues.decodeInteger(Sysctl.darwin().read("hw.ncpu").orElseThrow()) >= 1);
    assertTrue(SysctlValues.decodeInteger(Sysctl.darwin().read("hw.memsize").orElseThrow()) > 0);
    assertTrue(Sysctl.darwin().read("no.such.sysctl.name").isEmpty());
  }

  @Test
  void objcRuntimeResolvesClassesAndSelectors() {
    ObjC objc = ObjC.runtime();
    assertNotEquals(MemorySegment.NULL, objc.cls("NSObject"));
    assertEquals(objc.sel("supportsFamily:"), objc.sel("supportsFamily:"));
  }

  @Test
  void probeReportsThisMacWithoutNotes(@org.junit.jupiter.api.io.TempDir java.nio.file.Path home)
      throws java.io.IOException {
    ProbeResult r = MacProbe.probe(java.util.Map.of("HOME", home.toString()));
    assertTrue(r.gpuFromMetal());
    java.nio.file.Path caches = home.resolve("Library/Caches/Strata");
    try (var left = java.nio.file.Files.list(caches)) {
      assertEquals(0, left.count(), "the GPU probe's marker is removed when it returns");
    }
    HostFacts f = r.facts();
    assertEquals("macos", f.os());
    assertEquals(Runtime.getRuntime().availableProcessors(), f.cpuCores());
    if ("aarch64".equals(System.getProperty("os.arch"))) {
      assertTrue(f.chip().startsWith("Apple M"), f.chip());
      assertTrue(f.gpuFamily() >= 1007, "Apple silicon is Apple7 or newer: " + f.gpuFamily());
      assertTrue(f.efficiencyCores() >= 1);
      assertTrue(r.recommendedMaxWorkingSet().isPresent());
      assertEquals(f.gpuFamily() == 1010, f.k4());
      assertTrue(r.notes().isEmpty(), r.notes().toString());
    }
  }
}
