package dev.strata.metal;

import java.nio.charset.StandardCharsets;

/**
 * Decodes the raw buffers {@code sysctlbyname} fills. Pure, so it is tested from recorded bytes on
 * any machine. Apple silicon and Intel Macs are both little-endian.
 */
final class SysctlValues {
  private SysctlValues() {}

  /**
   * An integer sysctl: CTLTYPE_INT (4 bytes, e.g. {@code hw.ncpu}) or CTLTYPE_QUAD (8 bytes, e.g.
   * {@code hw.memsize}), little-endian. The width comes from the buffer, not from the name, since a
   * few names have changed width between macOS releases.
   *
   * @throws IllegalArgumentException for any other length
   */
  static long decodeInteger(byte[] b) {
    return switch (b.length) {
      case 4 -> (b[0] & 0xFF) | (b[1] & 0xFF) << 8 | (b[2] & 0xFF) << 16 | (b[3] & 0xFF) << 24;
      case 8 -> {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
          v = v << 8 | (b[i] & 0xFF);
        }
        yield v;
      }
      default ->
          throw new IllegalArgumentException("an integer sysctl is 4 or 8 bytes, got " + b.length);
    };
  }

  /** A string sysctl: UTF-8 up to the first NUL (the kernel counts the NUL in the size). */
  static String decodeString(byte[] b) {
    int end = 0;
    while (end < b.length && b[end] != 0) {
      end++;
    }
    return new String(b, 0, end, StandardCharsets.UTF_8);
  }
}
