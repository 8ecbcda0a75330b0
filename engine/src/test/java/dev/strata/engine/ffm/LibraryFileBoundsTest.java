package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ffm.LibraryFile.Format;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * Every bound the header checks hold a library to, at its edge: a segment ending at the file's last
 * byte loads, one byte further is truncation (ELF program and section headers, Mach-O load commands
 * and LC_SEGMENT_64 segments; layouts from the ELF-64 spec and Apple's mach-o/loader.h), and the
 * fat-header count that tells a Java class file from a universal library.
 */
class LibraryFileBoundsTest {
  private static final String CUT = "is truncated or damaged: ";

  /** An ELF-64 header, {@code loads} PT_LOAD program headers of 56 bytes, padded to size. */
  private static ByteBuffer elf(int size, int loads) {
    ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    b.put(0, new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1});
    b.putLong(32, 64);
    b.putShort(54, (short) 56);
    b.putShort(56, (short) loads);
    b.putShort(58, (short) 64);
    for (int i = 0; i < loads; i++) {
      b.putInt(64 + 56 * i, 1);
      b.putLong(64 + 56 * i + 8, 0);
      b.putLong(64 + 56 * i + 32, size);
    }
    return b;
  }

  private static String elfProblem(ByteBuffer b) {
    return LibraryFile.problem(b.array(), Format.ELF);
  }

  @Test
  void anElfSegmentEndingAtTheLastByteLoads() {
    assertNull(elfProblem(elf(400, 2)));
    ByteBuffer second = elf(400, 2);
    second.putLong(64 + 56 + 8, 100);
    second.putLong(64 + 56 + 32, 301); // the second segment: bytes 100..401 of 400
    assertEquals(
        CUT
            + "a loadable segment at bytes 100..401 lie past its end (400 bytes; rebuild or"
            + " re-copy the library)",
        elfProblem(second));
  }

  @Test
  void elfSectionHeadersAreHeldToTheFileOnlyWhenThereAreSome() {
    ByteBuffer none = elf(400, 1);
    none.putLong(40, -1); // no section headers: their offset means nothing
    assertNull(elfProblem(none));
    ByteBuffer fits = elf(400, 1);
    fits.putLong(40, 400 - 2 * 64);
    fits.putShort(60, (short) 2);
    assertNull(elfProblem(fits));
    ByteBuffer past = elf(400, 1);
    past.putLong(40, 400 - 2 * 64 + 1);
    past.putShort(60, (short) 2);
    assertTrue(elfProblem(past).startsWith(CUT + "its section headers"), elfProblem(past));
  }

  /** A 64-bit little-endian Mach-O header and the given load commands, padded to size. */
  private static ByteBuffer machO(int size, int ncmds, int sizeofcmds) {
    ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0, 0xfeedfacf);
    b.putInt(12, 6); // MH_DYLIB
    b.putInt(16, ncmds);
    b.putInt(20, sizeofcmds);
    return b;
  }

  /** LC_SEGMENT_64 (72 bytes without sections) at {@code at} in the file. */
  private static void segment(ByteBuffer b, int at, long fileoff, long filesize) {
    b.putInt(at, 0x19);
    b.putInt(at + 4, 72);
    b.putLong(at + 40, fileoff);
    b.putLong(at + 48, filesize);
  }

  private static String machOProblem(ByteBuffer b) {
    return LibraryFile.problem(b.array(), Format.MACH_O);
  }

  @Test
  void aMachOSegmentEndingAtTheLastByteLoads() {
    ByteBuffer whole = machO(4096, 2, 144);
    segment(whole, 32, 0, 4096);
    segment(whole, 32 + 72, 2048, 2048);
    assertNull(machOProblem(whole));
    ByteBuffer past = machO(4096, 2, 144);
    segment(past, 32, 0, 4096);
    segment(past, 32 + 72, 2048, 2049);
    assertEquals(
        CUT
            + "a segment at bytes 2048..4097 lie past its end (4096 bytes; rebuild or re-copy the"
            + " library)",
        machOProblem(past));
    ByteBuffer negative = machO(4096, 1, 72);
    segment(negative, 32, -1, 8);
    assertTrue(machOProblem(negative).startsWith(CUT + "a segment at bytes -1"));
  }

  @Test
  void machOLoadCommandsMustFitTheirTable() {
    // the table itself ends at the last byte: fine; one more byte: truncated
    ByteBuffer exact = machO(32 + 72, 1, 72);
    segment(exact, 32, 0, 104);
    assertNull(machOProblem(exact));
    assertTrue(machOProblem(machO(32 + 72, 1, 73)).startsWith(CUT + "its load commands"));
    assertTrue(machOProblem(machO(1024, 1, (1 << 24) + 1)).startsWith(CUT + "its load commands"));
    assertTrue(machOProblem(machO(1024, -1, 0)).startsWith(CUT + "its load commands"));
    // two commands announced, room for one
    ByteBuffer two = machO(1024, 2, 72);
    segment(two, 32, 0, 64);
    assertTrue(machOProblem(two).startsWith(CUT + "its load commands"), machOProblem(two));
    // a command of 8 bytes is the smallest there is; 7 is damage, and so is one past the table
    ByteBuffer small = machO(1024, 1, 8);
    small.putInt(32, 0x2);
    small.putInt(36, 8);
    assertNull(machOProblem(small));
    small.putInt(36, 7);
    assertEquals(
        "is a damaged Mach-O library (load command 0 has a bad size)", machOProblem(small));
    small.putInt(36, 16);
    assertEquals(
        "is a damaged Mach-O library (load command 0 has a bad size)", machOProblem(small));
    // a short header
    ByteBuffer shortHead = ByteBuffer.allocate(31).order(ByteOrder.LITTLE_ENDIAN);
    shortHead.putInt(0, 0xfeedfacf);
    assertTrue(machOProblem(shortHead).startsWith(CUT + "its header"));
  }

  @Test
  void aFatHeaderCountsAtMostTwentyArchitectures() {
    ByteBuffer fat = ByteBuffer.allocate(8).order(ByteOrder.BIG_ENDIAN);
    fat.putInt(0, 0xcafebabe);
    fat.putInt(4, 20);
    assertNull(LibraryFile.problem(fat.array(), Format.MACH_O));
    fat.putInt(4, 21);
    assertTrue(
        LibraryFile.problem(fat.array(), Format.MACH_O)
            .startsWith("is not a shared library (a Java class file?"));
    fat.putInt(4, 0);
    assertTrue(
        LibraryFile.problem(fat.array(), Format.MACH_O)
            .startsWith("is not a shared library (a Java class file?"));
    assertTrue(
        LibraryFile.problem(
                new byte[] {(byte) 0xca, (byte) 0xfe, (byte) 0xba, (byte) 0xbe}, Format.MACH_O)
            .startsWith("is not a shared library (a Java class file?"));
  }

  @Test
  void aShortOrForeignElfIsNamed() {
    ByteBuffer b = elf(400, 1);
    b.put(4, (byte) 1); // ELFCLASS32
    assertEquals(
        "is not a 64-bit little-endian ELF library (built for another platform?)", elfProblem(b));
    ByteBuffer big = elf(400, 1);
    big.put(5, (byte) 2); // big-endian
    assertEquals(
        "is not a 64-bit little-endian ELF library (built for another platform?)", elfProblem(big));
    byte[] head = new byte[63];
    System.arraycopy(elf(400, 1).array(), 0, head, 0, 63);
    assertEquals(
        "is not a 64-bit little-endian ELF library (built for another platform?)",
        LibraryFile.problem(head, Format.ELF));
  }
}
