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
    assertTrue(SysctlValues.decodeInteger(Sysctl.read("hw.ncpu").orElseThrow()) >= 1);
    assertTrue(SysctlValues.decodeInteger(Sysctl.read("hw.memsize").orElseThrow()) > 0);
    assertTrue(Sysctl.read("no.such.sysctl.name").isEmpty());
  }

  @Test
  void objcRuntimeResolvesClassesAndSelectors() {
    ObjC objc = ObjC.runtime();
    assertNotEquals(MemorySegment.NULL, objc.cls("NSObject"));
    assertEquals(objc.sel("supportsFamily:"), objc.sel("supportsFamily:"));
  }

  @Test
  void probeReportsThisMacWithoutNotes() {
    ProbeResult r = MacProbe.probe();
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
