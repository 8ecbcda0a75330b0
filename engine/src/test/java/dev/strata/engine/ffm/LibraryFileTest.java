package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ffm.LibraryFile.Format;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The header checks made before dlopen (and in the launcher's preflight), for both loaders: the
 * Mach-O side is exercised here on byte layouts, since no Mac runs these tests.
 */
class LibraryFileTest {
  @TempDir Path tmp;

  private Path file(String name, byte[] bytes) throws IOException {
    return Files.write(tmp.resolve(name), bytes);
  }

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
  void eachLoaderTakesItsOwnFormatAndRefusesTheOther() throws IOException {
    Path elf = file("l.so", elf());
    Path macho = file("l.dylib", machO64());
    assertNull(LibraryFile.problem(elf, Format.ELF));
    assertNull(LibraryFile.problem(macho, Format.MACH_O));
    assertTrue(LibraryFile.problem(elf, Format.MACH_O).startsWith("is an ELF library (Linux)"));
    assertTrue(
        LibraryFile.problem(macho, Format.ELF).startsWith("is a Mach-O library (macOS)"),
        LibraryFile.problem(macho, Format.ELF));
  }

  @Test
  void fatAndByteSwappedMachOHeadersAreMachO() throws IOException {
    // fat (universal) binaries: big-endian magic and its byte-swapped form, two architectures
    assertNull(LibraryFile.problem(file("fat", bigEndianInts(0xcafebabe, 2)), Format.MACH_O));
    assertNull(
        LibraryFile.problem(
            file("fat-swapped", bigEndianInts(0xbebafeca, Integer.reverseBytes(2))),
            Format.MACH_O));
    // a big-endian 64-bit Mach-O, and 32-bit ones either way round
    assertNull(LibraryFile.problem(file("be64", bigEndianInts(0xfeedfacf, 0)), Format.MACH_O));
    assertNull(LibraryFile.problem(file("be32", bigEndianInts(0xfeedface, 0)), Format.MACH_O));
    assertNull(LibraryFile.problem(file("le32", bigEndianInts(0xcefaedfe, 0)), Format.MACH_O));
    assertTrue(
        LibraryFile.problem(file("fat-on-linux", bigEndianInts(0xcafebabe, 2)), Format.ELF)
            .startsWith("is a Mach-O library"));
  }

  @Test
  void aJavaClassFileIsNotAFatLibrary() throws IOException {
    // cafebabe, then minor version 0 and major version 69 (Java 25) where a fat header's count is
    Path cls = file("Main.class", bigEndianInts(0xcafebabe, 69));
    assertTrue(
        LibraryFile.problem(cls, Format.MACH_O).startsWith("is not a shared library (a Java class"),
        LibraryFile.problem(cls, Format.MACH_O));
  }

  @Test
  void textAndTinyFilesAreNotLibraries() throws IOException {
    assertEquals(
        "is not a shared library (no ELF or Mach-O header; is engine.library the right file?)",
        LibraryFile.problem(file("t.so", "hello, not a library\n".getBytes()), Format.ELF));
    assertEquals(
        "is not a shared library (too short for a header)",
        LibraryFile.problem(file("short.so", new byte[] {0x7f, 'E'}), Format.ELF));
  }

  @Test
  void aSegmentPastTheEndIsTruncation() throws IOException {
    byte[] b = elf();
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(64 + 32, 4096);
    assertTrue(
        LibraryFile.problem(file("cut.so", b), Format.ELF).startsWith("is truncated or damaged"));
  }
}
