package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ffm.LibraryFile.Format;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * The header checks made before dlopen (and in the launcher's preflight), for both loaders: the
 * Mach-O side is exercised here on byte layouts, since no Mac runs these tests.
 */
class LibraryFileTest {
  private static byte[] elf() {
    ByteBuffer b = ByteBuffer.allocate(64 + 56).order(ByteOrder.LITTLE_ENDIAN);
    b.put(0, new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1});
    b.putLong(32, 64);
    b.putShort(54, (short) 56);
    b.putShort(56, (short) 1);
    b.putInt(64, 1); // PT_LOAD
    b.putLong(64 + 32, 64 + 56);
    return b.array();
  }

  private static byte[] bigEndianInts(int... words) {
    ByteBuffer b = ByteBuffer.allocate(4 * words.length).order(ByteOrder.BIG_ENDIAN);
    for (int w : words) {
      b.putInt(w);
    }
    return b.array();
  }

  private static byte[] machO64() {
    ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0, 0xfeedfacf);
    return b.array();
  }

  @Test
  void eachLoaderTakesItsOwnFormatAndRefusesTheOther() {
    byte[] elf = elf();
    byte[] macho = machO64();
    assertNull(LibraryFile.problem(elf, Format.ELF));
    assertNull(LibraryFile.problem(macho, Format.MACH_O));
    assertTrue(LibraryFile.problem(elf, Format.MACH_O).startsWith("is an ELF library (Linux)"));
    assertTrue(
        LibraryFile.problem(macho, Format.ELF).startsWith("is a Mach-O library (macOS)"),
        LibraryFile.problem(macho, Format.ELF));
  }

  @Test
  void fatAndByteSwappedMachOHeadersAreMachO() {
    // fat (universal) binaries: big-endian magic and its byte-swapped form, two architectures
    assertNull(LibraryFile.problem(bigEndianInts(0xcafebabe, 2), Format.MACH_O));
    assertNull(
        LibraryFile.problem(bigEndianInts(0xbebafeca, Integer.reverseBytes(2)), Format.MACH_O));
    // a big-endian 64-bit Mach-O, and 32-bit ones either way round
    assertNull(LibraryFile.problem(bigEndianInts(0xfeedfacf, 0), Format.MACH_O));
    assertNull(LibraryFile.problem(bigEndianInts(0xfeedface, 0), Format.MACH_O));
    assertNull(LibraryFile.problem(bigEndianInts(0xcefaedfe, 0), Format.MACH_O));
    assertTrue(
        LibraryFile.problem(bigEndianInts(0xcafebabe, 2), Format.ELF)
            .startsWith("is a Mach-O library"));
  }

  @Test
  void aJavaClassFileIsNotAFatLibrary() {
    // cafebabe, then minor version 0 and major version 69 (Java 25) where a fat header's count is
    byte[] cls = bigEndianInts(0xcafebabe, 69);
    assertTrue(
        LibraryFile.problem(cls, Format.MACH_O).startsWith("is not a shared library (a Java class"),
        LibraryFile.problem(cls, Format.MACH_O));
  }

  @Test
  void textAndTinyFilesAreNotLibraries() {
    assertEquals(
        "is not a shared library (no ELF or Mach-O header; is engine.library the right file?)",
        LibraryFile.problem("hello, not a library\n".getBytes(), Format.ELF));
    assertEquals(
        "is not a shared library (too short for a header)",
        LibraryFile.problem(new byte[] {0x7f, 'E'}, Format.ELF));
  }

  @Test
  void aSegmentPastTheEndIsTruncation() {
    byte[] b = elf();
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(64 + 32, 4096);
    assertTrue(LibraryFile.problem(b, Format.ELF).startsWith("is truncated or damaged"));
  }
}
