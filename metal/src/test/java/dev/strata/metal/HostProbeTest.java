package dev.strata.metal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HostProbeTest {
  @ParameterizedTest(name = "os.name {0}: {1}")
  @CsvSource({"Mac OS X, macos", "Linux, linux", "Windows 11, other", "FreeBSD, other"})
  void picksTheProbeByOsName(String osName, String family) {
    assertEquals(family, HostProbe.family(osName));
  }
}
