package dev.strata.metal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class HostProbeTest {
  @Test
  void picksTheProbeByOsName() {
    assertEquals("macos", HostProbe.family("Mac OS X"));
    assertEquals("linux", HostProbe.family("Linux"));
    assertEquals("other", HostProbe.family("Windows 11"));
    assertEquals("other", HostProbe.family("FreeBSD"));
  }
}
