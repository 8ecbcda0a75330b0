package dev.strata.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.condition.OS;

/**
 * Engine libraries of the real ABI (version 1, every symbol; or version 2 with a scripted {@code
 * strata_engine_check}) compiled by the test with {@code cc}: each answers its own name, and its
 * constructor — code that runs the moment the loader maps it, before any ABI check — appends its
 * name to a marker file, so a test can tell whether a library ran at all. The engine module's
 * loader tests, the launcher's preflight tests and the end-to-end trust tests share them.
 */
public final class StandInLibrary {
  private StandInLibrary() {}

  /**
   * Compiles {@code folder/libNAME.so} (.dylib on a Mac) whose engine name is {@code name} and
   * whose constructor appends {@code name} and a line break to {@code marker}.
   */
  public static Path compile(Path folder, String name, Path marker)
      throws IOException, InterruptedException {
    return compile(folder, name, marker, "int strata_engine_abi_version(void) { return 1; }\n");
  }

  /**
   * One line an ABI 2 stand-in's check logs.
   *
   * @param level as {@code strata_log_fn} numbers it: 0 info, 1 warn, 2 error
   * @param text printable ASCII
   */
  public record LogLine(int level, String text) {}

  /**
   * {@link #compile}'s library as an ABI 2 engine: its {@code strata_engine_check} logs {@code
   * lines} in order and returns {@code rc}, whatever the argv (a stand-in for an engine whose own
   * rules differ from the launcher's).
   */
  public static Path compileWithCheck(
      Path folder, String name, Path marker, int rc, List<LogLine> lines)
      throws IOException, InterruptedException {
    StringBuilder check =
        new StringBuilder(
            "int strata_engine_abi_version(void) { return 2; }\n"
                + "int strata_engine_check(int c, const char *const *v, strata_log_fn l, void *u)"
                + " {\n");
    for (LogLine line : lines) {
      check
          .append("  l(u, ")
          .append(line.level())
          .append(", \"")
          .append(line.text().replace("\\", "\\\\").replace("\"", "\\\""))
          .append("\");\n");
    }
    check.append("  return ").append(rc).append(";\n}\n");
    return compile(folder, name, marker, check.toString());
  }

  private static Path compile(Path folder, String name, Path marker, String abi)
      throws IOException, InterruptedException {
    Path src = folder.resolve(name + ".c");
    Files.writeString(
        src,
        """
        #include <stddef.h>
        #include <stdint.h>
        #include <stdio.h>
        typedef void (*strata_log_fn)(void *, int, const char *);
        __attribute__((constructor)) static void ran(void) {
          FILE *f = fopen(MARKER, "a"); if (f) { fputs(NAME "\\n", f); fclose(f); } }
        """
            + abi
            + """
        const char *strata_engine_name(void) { return NAME; }
        int strata_engine_main(int c, const char *const *v, strata_log_fn l, void *u) {
          l(u, 0, NAME ": running"); return 0; }
        void strata_engine_cancel(void) {}
        size_t strata_kv_cell_bytes(int f, int h, int d) { return 0; }
        int strata_kv_encode(int f, const float *s, size_t n, int d, uint8_t *o) { return -1; }
        int strata_kv_decode(int f, const uint8_t *s, size_t n, int d, float *o) { return -1; }
        """,
        StandardCharsets.UTF_8);
    Path lib = folder.resolve("lib" + name + (OS.MAC.isCurrentOs() ? ".dylib" : ".so"));
    Process cc =
        new ProcessBuilder(
                "cc",
                "-shared",
                "-fPIC",
                "-DNAME=\"" + name + "\"",
                "-DMARKER=\"" + marker + "\"",
                "-o",
                lib.toString(),
                src.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(cc.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, cc.exitValue(), out);
    return lib;
  }

  /**
   * The smallest file the header checks ({@code LibraryFile}) take as a whole library for this
   * machine's loader, never loaded: on Linux an ELF-64 header with one PT_LOAD segment covering the
   * file (120 bytes), on macOS a Mach-O 64 header with no load commands (32 bytes).
   */
  public static byte[] smallest() {
    if (OS.MAC.isCurrentOs()) {
      ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
      b.putInt(0, 0xfeedfacf);
      return b.array();
    }
    ByteBuffer b = ByteBuffer.allocate(64 + 56).order(ByteOrder.LITTLE_ENDIAN);
    b.put(0, new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1});
    b.putLong(32, 64); // e_phoff
    b.putShort(54, (short) 56); // e_phentsize
    b.putShort(56, (short) 1); // e_phnum
    b.putInt(64, 1); // PT_LOAD
    b.putLong(64 + 8, 0); // p_offset
    b.putLong(64 + 32, 64 + 56); // p_filesz: the whole file
    return b.array();
  }
}
