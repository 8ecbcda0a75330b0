package dev.strata.metal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SysctlValuesTest {
  static byte[] bytes(int... v) {
    byte[] b = new byte[v.length];
    for (int i = 0; i < v.length; i++) {
      b[i] = (byte) v[i];
    }
    return b;
  }

  @Test
  void int32LittleEndian() {
    assertEquals(14, SysctlValues.decodeInteger(bytes(0x0e, 0, 0, 0))); // hw.ncpu, M4 Pro
    assertEquals(0x01020304, SysctlValues.decodeInteger(bytes(4, 3, 2, 1)));
    assertEquals(-1, SysctlValues.decodeInteger(bytes(0xff, 0xff, 0xff, 0xff)));
  }

  @Test
  void int64LittleEndian() {
    // hw.memsize of a 48 GB Mac: 0x0000000C_00000000
    assertEquals(51_539_607_552L, SysctlValues.decodeInteger(bytes(0, 0, 0, 0, 0x0c, 0, 0, 0)));
    // 192 GB: 0x00000030_00000000
    assertEquals(206_158_430_208L, SysctlValues.decodeInteger(bytes(0, 0, 0, 0, 0x30, 0, 0, 0)));
    assertEquals(0x0102030405060708L, SysctlValues.decodeInteger(bytes(8, 7, 6, 5, 4, 3, 2, 1)));
  }

  @Test
  void otherWidthsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> SysctlValues.decodeInteger(bytes(1, 2)));
    assertThrows(IllegalArgumentException.class, () -> SysctlValues.decodeInteger(new byte[0]));
  }

  @Test
  void stringsStopAtTheFirstNul() {
    assertEquals("Apple M4 Pro", SysctlValues.decodeString("Apple M4 Pro\0".getBytes()));
    assertEquals("27.0.1", SysctlValues.decodeString("27.0.1\0garbage".getBytes()));
    assertEquals("no-nul", SysctlValues.decodeString("no-nul".getBytes()));
    assertEquals("", SysctlValues.decodeString(new byte[] {0}));
  }
}
