package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.launcher.preflight.LibraryTrust;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way the engine library can be refused: one line, exit 3, the engine never started. The
 * library is a copy of the real strata-ref, or a real file that is not one.
 */
class LibraryRefusalE2eTest {
  @TempDir static Path dir;
  static List<Path> shards;
  static final List<String> SHORT = List.of("--prompt-tokens", "8", "--n-predict", "1");

  @BeforeAll
  static void model() throws IOException {
    shards = E2e.demoModel(dir);
  }

  private static E2e.Result launch(String name, Path lib, String sha) throws IOException {
    Path cfg = E2e.config(dir.resolve(name + ".yaml"), lib, sha, shards, 1024, SHORT, Map.of());
    return E2e.launch("--config", cfg.toString());
  }

  private static Path copyOfRef(Path folder) throws IOException {
    E2e.privateDir(folder);
    Path lib = folder.resolve(E2e.refLibrary().getFileName());
    Files.copy(E2e.refLibrary(), lib, StandardCopyOption.REPLACE_EXISTING);
    Files.setPosixFilePermissions(lib, PosixFilePermissions.fromString("rwxr-xr-x"));
    return lib;
  }

  private static void assertEngineNeverRan(E2e.Result r) {
    assertTrue(!r.out().contains("kv: format="), r.out());
    assertTrue(!r.out().contains("strata-ref 0") && !r.out().contains(": starting"), r.out());
  }

  /** A launch refused before the engine ran: exit 3, one line on stderr; returns that line. */
  private static String refused(String name, Path lib, String sha) throws IOException {
    E2e.Result r = launch(name, lib, sha);
    assertEquals(3, r.code(), r.err());
    assertEngineNeverRan(r);
    return r.oneLineRefusal();
  }

  @Test
  void aPinnedCopyOfStrataRefRuns() throws IOException {
    Path lib = copyOfRef(dir.resolve("good"));
    E2e.Result r = launch("good", lib, LibraryTrust.sha256Of(lib));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("kv: format=int8 cell_bytes=1056 layers=12 cells=1152"), r.out());
  }

  @Test
  void aMissingLibrary() throws IOException {
    String line =
        refused("missing", E2e.privateDir(dir.resolve("none")).resolve("libnope.so"), null);
    assertTrue(line.startsWith("engine library not found: "), line);
  }

  @Test
  void aFileThatIsNotALibrary() throws IOException {
    Path folder = E2e.privateDir(dir.resolve("text"));
    Path lib = folder.resolve("libstrata_text.so");
    Files.writeString(lib, "this is a text file, not a shared library\n", StandardCharsets.UTF_8);
    String line = refused("text", lib, null);
    assertTrue(line.contains(lib.toString()), line);
  }

  @Test
  void aFileThatIsNotALibraryUnderIsolateIsTheSameOneLine() throws IOException {
    Path folder = E2e.privateDir(dir.resolve("text-iso"));
    Path lib = folder.resolve("libstrata_text.so");
    Files.writeString(lib, "this is a text file, not a shared library\n", StandardCharsets.UTF_8);
    Path cfg = E2e.config(dir.resolve("text-iso.yaml"), lib, null, shards, 1024, SHORT, Map.of());
    E2e.Result r = E2e.launch("--config", cfg.toString(), "--isolate");
    assertEquals(3, r.code(), r.err());
    assertTrue(r.oneLineRefusal().contains(lib.toString()), r.err());
    assertEngineNeverRan(r);
  }

  @Test
  void anAbiMismatch() throws IOException, InterruptedException {
    // A real shared library exporting the whole ABI but answering version 999.
    Path folder = E2e.privateDir(dir.resolve("abi"));
    Path src = folder.resolve("abi999.c");
    Files.writeString(
        src,
        """
        #include <stddef.h>
        #include <stdint.h>
        typedef void (*strata_log_fn)(void *, int, const char *);
        int strata_engine_abi_version(void) { return 999; }
        const char *strata_engine_name(void) { return "abi-999 test library"; }
        int strata_engine_main(int c, const char *const *v, strata_log_fn l, void *u) {
          l(u, 0, "abi-999: running"); return 0; }
        void strata_engine_cancel(void) {}
        size_t strata_kv_cell_bytes(int f, int h, int d) { return 0; }
        int strata_kv_encode(int f, const float *s, size_t n, int d, uint8_t *o) { return -1; }
        int strata_kv_decode(int f, const uint8_t *s, size_t n, int d, float *o) { return -1; }
        """,
        StandardCharsets.UTF_8);
    Path lib = folder.resolve(E2e.mac() ? "libabi999.dylib" : "libabi999.so");
    Process cc =
        new ProcessBuilder("cc", "-shared", "-fPIC", "-o", lib.toString(), src.toString())
            .redirectErrorStream(true)
            .start();
    String ccOut = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(cc.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, cc.exitValue(), ccOut);
    E2e.Result r = launch("abi", lib, null);
    assertEquals(3, r.code(), r.err());
    String line = r.oneLineRefusal();
    assertTrue(line.contains("999"), line);
    assertTrue(!r.out().contains("abi-999: running"), "the engine never ran: " + r.out());
  }

  @Test
  void aWorldWritableLibrary() throws IOException {
    Path lib = copyOfRef(dir.resolve("ww"));
    Files.setPosixFilePermissions(lib, PosixFilePermissions.fromString("rwxrwxrwx"));
    String line = refused("ww", lib, null);
    assertTrue(line.contains("is writable by group and others"), line);
  }

  @Test
  void aLibraryInAWorldWritableFolder() throws IOException {
    Path lib = copyOfRef(dir.resolve("wwdir"));
    Files.setPosixFilePermissions(lib.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
    String line = refused("wwdir", lib, null);
    assertTrue(
        line.startsWith(
            "folder "
                + lib.getParent().toRealPath()
                + " of the engine library "
                + lib
                + " (owner "),
        line);
  }

  @Test
  void aSymlinkIntoAWorldWritablePlace() throws IOException {
    Path target = copyOfRef(dir.resolve("wwlinked"));
    Files.setPosixFilePermissions(target.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
    Path link =
        Files.createSymbolicLink(
            E2e.privateDir(dir.resolve("linkhome")).resolve(target.getFileName()), target);
    String line = refused("link", link, null);
    assertTrue(line.contains("is writable by group and others"), line);
  }

  @Test
  void aSha256Mismatch() throws IOException {
    Path lib = copyOfRef(dir.resolve("sha"));
    String wrong = "0".repeat(64);
    String line = refused("sha", lib, wrong);
    assertTrue(line.contains("does not match engine.sha256"), line);
    assertTrue(line.contains(LibraryTrust.sha256Of(lib).substring(0, 16)), line);
  }
}
