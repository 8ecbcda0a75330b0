package dev.strata.launcher.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.strata.engine.host.HostFacts;
import org.junit.jupiter.api.Test;

class HostDiffTest {
  private static final HostFacts M4_PRO_48 =
      new HostFacts("macos", "Apple M4 Pro", 14, 10, 4, 48L << 30, 1009, true, false, "15.1", 0);

  @Test
  void theSameMachineAfterAnOsUpdateIsTheSame() {
    HostFacts updated =
        new HostFacts(
            "macos", "Apple M4 Pro", 14, 10, 4, 48L << 30, 1009, true, false, "27.0.1", 0);
    assertNull(HostDiff.describe(M4_PRO_48, updated));
  }

  @Test
  void lessMemoryIsNamed() {
    HostFacts small =
        new HostFacts("macos", "Apple M4", 10, 4, 6, 16L << 30, 1009, true, false, "15.1", 0);
    assertEquals(
        "chip Apple M4 Pro → Apple M4, memory 48.00 GiB → 16.00 GiB (less), cores 10P+4E → 4P+6E",
        HostDiff.describe(M4_PRO_48, small));
  }
}
