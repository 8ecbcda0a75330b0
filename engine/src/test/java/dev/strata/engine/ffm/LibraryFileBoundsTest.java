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
    // fileoff is a uint64_t: 0xffffffffffffffff is past any file, shown as the field holds it
    ByteBuffer huge = machO(4096, 1, 72);
    segment(huge, 32, -1, 8);
    assertTrue(
        machOProblem(huge)
            .startsWith(
                CUT + "a segment at bytes 18446744073709551615..18446744073709551623 lie past"),
        machOProblem(huge));
    // an offset and a size whose sum wraps round 2^64 to a small number are not "inside"
    ByteBuffer wraps = machO(4096, 1, 72);
    segment(wraps, 32, 8, -1);
    assertTrue(
        machOProblem(wraps).startsWith(CUT + "a segment at bytes 8..18446744073709551623 lie"),
        machOProblem(wraps));
  }

  @Test
  void theElfProgramHeaderTableEndsAtTheLastByteOrIsTruncation() {
    // two 56-byte program headers at byte 64: the table ends at byte 176
    assertNull(elfProblem(elf(176, 2)));
    assertEquals(
        CUT + "its program headers lie past its end (175 bytes; rebuild or re-copy the library)",
        elfProblem(elf(175, 2)));
    // an entry smaller than Elf64_Phdr, and no program header at all: not a loadable library
    ByteBuffer small = elf(400, 1);
    small.putShort(54, (short) 55);
    assertTrue(elfProblem(small).startsWith(CUT + "its program headers"), elfProblem(small));
    assertTrue(elfProblem(elf(400, 0)).startsWith(CUT + "its program headers"));
  }

  @Test
  void headerFieldsWhoseSumsPass2To63AreRefusedNotWrappedRound() {
    // e_phoff near 2^63: phoff + 56 wraps negative; it must read as past the end, never as a
    // table inside the file (which would then be read out of bounds)
    ByteBuffer ph = elf(400, 1);
    ph.putLong(32, Long.MAX_VALUE - 50);
    assertTrue(elfProblem(ph).startsWith(CUT + "its program headers"), elfProblem(ph));
    ph.putLong(32, -8); // a u64 offset of 2^64 - 8
    assertTrue(elfProblem(ph).startsWith(CUT + "its program headers"), elfProblem(ph));
    ByteBuffer sh = elf(400, 1);
    sh.putLong(40, Long.MAX_VALUE - 10);
    sh.putShort(60, (short) 1);
    assertTrue(elfProblem(sh).startsWith(CUT + "its section headers"), elfProblem(sh));
    // a PT_LOAD of p_filesz 2^63 - 1 at byte 100: the end is 2^63 + 99, far past 400 bytes
    ByteBuffer seg = elf(400, 1);
    seg.putLong(64 + 8, 100);
    seg.putLong(64 + 32, Long.MAX_VALUE);
    assertEquals(
        CUT
            + "a loadable segment at bytes 100..9223372036854775907 lie past its end (400 bytes;"
            + " rebuild or re-copy the library)",
        elfProblem(seg));
  }

  @Test
  void segmentsHoldingNoFileBytesLoadWhereverTheyStartInsideTheFile() {
    // a PT_LOAD of only .bss has p_filesz 0; its offset may be the end of the file
    ByteBuffer bss = elf(400, 2);
    bss.putLong(64 + 56 + 8, 400);
    bss.putLong(64 + 56 + 32, 0);
    assertNull(elfProblem(bss));
    bss.putLong(64 + 56 + 8, 401);
    assertTrue(elfProblem(bss).startsWith(CUT + "a loadable segment at bytes 401..401"));
    // Mach-O: __PAGEZERO-like (fileoff 0, filesize 0) and an empty segment at the end
    ByteBuffer zero = machO(4096, 2, 144);
    segment(zero, 32, 0, 0);
    segment(zero, 32 + 72, 4096, 0);
    assertNull(machOProblem(zero));
    // a segment that is not PT_LOAD is not held to the file (PT_GNU_STACK has no bytes)
    ByteBuffer stack = elf(400, 2);
    stack.putInt(64 + 56, 0x6474e551);
    stack.putLong(64 + 56 + 8, 1_000_000);
    assertNull(elfProblem(stack));
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
    // the whole 64-byte header and nothing after it: a cut download, its program headers missing
    byte[] header = new byte[64];
    System.arraycopy(elf(400, 1).array(), 0, header, 0, 64);
    assertEquals(
        CUT + "its program headers lie past its end (64 bytes; rebuild or re-copy the library)",
        LibraryFile.problem(header, Format.ELF));
  }
}
