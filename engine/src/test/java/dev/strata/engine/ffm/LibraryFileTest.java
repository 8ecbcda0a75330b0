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

  /**
   * Issue 28: what setup and launch both refuse before dlopen (one {@link LibraryFile#problem}): a
   * library for another CPU (not dlopen's "No such file or directory"), a program (a PIE such as
   * /bin/ls: "cannot dynamically load position-independent executable"), a shared library that is
   * not an engine (none of the ABI's symbols); strata-ref itself passes.
   */
  @Test
  void anotherArchitectureAProgramAndALibraryWithoutTheAbiAreRefusedBeforeTheLoader()
      throws java.io.IOException {
    String arch = System.getProperty("os.arch");
    int here = LibraryFile.elfMachine(arch);
    org.junit.jupiter.api.Assumptions.assumeTrue(here != 0, "an x86_64 or aarch64 machine");
    int other = here == 62 ? 183 : 62;
    byte[] foreign = elf();
    ByteBuffer.wrap(foreign).order(ByteOrder.LITTLE_ENDIAN).putShort(18, (short) other);
    assertEquals(
        "is built for another architecture ("
            + LibraryFile.elfMachineName(other)
            + "; this machine is "
            + LibraryFile.elfMachineName(here)
            + "): use a build of the engine for this machine",
        LibraryFile.problem(foreign, Format.ELF));
    java.nio.file.Path ls = java.nio.file.Path.of("/bin/ls");
    if (java.nio.file.Files.isRegularFile(ls)) {
      String p = LibraryFile.problem(java.nio.file.Files.readAllBytes(ls), Format.ELF);
      assertTrue(
          p.startsWith("is a program (a position-independent executable), not a shared library")
              || p.startsWith("is not a Strata engine library"),
          p);
    }
    java.nio.file.Path libjava =
        java.nio.file.Path.of(System.getProperty("java.home"), "lib", "libjava.so");
    if (java.nio.file.Files.isRegularFile(libjava)) {
      assertEquals(
          "is not a Strata engine library: it lacks the engine's ABI symbols"
              + " (strata_engine_abi_version and the rest); name the engine's library"
              + " (libstrata_ref.so, or the Metal engine's .dylib)",
          LibraryFile.problem(java.nio.file.Files.readAllBytes(libjava), Format.ELF));
    }
    java.nio.file.Path ref = NativeEngine.defaultLibrary(dev.strata.testsupport.RepoRoot.path());
    assertNull(LibraryFile.problem(java.nio.file.Files.readAllBytes(ref), Format.ELF));
    byte[] intel = machO64();
    ByteBuffer.wrap(intel).order(ByteOrder.LITTLE_ENDIAN).putInt(4, 0x01000007);
    assertTrue(
        LibraryFile.problem(intel, Format.MACH_O)
            .startsWith(
                "is built for another architecture (x86_64; Apple Silicon Macs load arm64)"));
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
