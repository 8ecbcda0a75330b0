package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.StrataException;
import dev.strata.engine.trust.TrustedPath;
import dev.strata.testsupport.OpenFiles;
import dev.strata.testsupport.StandInLibrary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link VerifiedLibrary} says and keeps, on libraries that are checked but never loaded (the
 * smallest file the header checks accept): the exact line for a missing library, a pin mismatch
 * (through a link, with and without the config's name), the hash and path it reports, a closed
 * library that hands nothing over, the isolated child's refusals — and no refusal leaves the file's
 * descriptor open (docs/LAUNCH.md, "What is loaded"). Loading is in {@link VerifiedLibraryTest}.
 */
@EnabledOnOs(OS.LINUX)
class VerifiedLibraryWordsTest {
  static final String CTX = "engine.library in /c/engine.yaml";
  static final String REMEDY =
      "build strata-ref with ./strata build, or rerun strata-setup --engine-lib PATH)";

  @TempDir Path tmp;
  Path lib;
  String sha;

  @BeforeEach
  void library() throws IOException {
    Path dir = tmp.toRealPath().resolve("lib");
    Files.createDirectory(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    lib = Files.write(dir.resolve("libengine.so"), StandInLibrary.smallest());
    Files.setPosixFilePermissions(lib, PosixFilePermissions.fromString("rw-r--r--"));
    sha = VerifiedLibrary.sha256(Files.readAllBytes(lib));
  }

  static VerifiedLibrary open(Path p, String pin, String context) {
    return VerifiedLibrary.open(
        p, pin, context, VerifiedLibrary.Strategy.FD_PATH, TrustedPath.me());
  }

  static String refused(Path p, String pin, String context) {
    StrataException e = assertThrows(StrataException.class, () -> open(p, pin, context).close());
    assertEquals(3, e.exitCode(), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
    return e.getMessage();
  }

  @Test
  void aMissingLibraryNamesWhatIsMissingAndHowToGetOne() throws IOException {
    Path gone = lib.resolveSibling("libgone.so");
    assertEquals(
        "engine library not found: " + gone + " (" + CTX + "; " + REMEDY, refused(gone, null, CTX));
    assertEquals("engine library not found: " + gone + " (" + REMEDY, refused(gone, null, null));
    Path deep = lib.resolveSibling("nowhere/libengine.so");
    assertEquals(
        "engine library not found: "
            + deep
            + " ("
            + lib.resolveSibling("nowhere")
            + " does not exist) ("
            + CTX
            + "; "
            + REMEDY,
        refused(deep, null, CTX));
    Path underFile = lib.resolve("libengine.so");
    assertEquals(
        "engine library not found: "
            + underFile
            + " ("
            + lib
            + " is a file, not a folder) ("
            + CTX
            + "; "
            + REMEDY,
        refused(underFile, null, CTX));
  }

  @Test
  void aPinMismatchShowsBothHashesCutToSixteenDigitsAndWhereThePinIs() throws IOException {
    String wrong = "0123456789abcdef".repeat(4);
    assertEquals(
        "engine library "
            + lib
            + " does not match engine.sha256 in /c/engine.yaml (pinned 0123456789abcdef…, file "
            + sha.substring(0, 16)
            + "…): restore the library, or rerun strata-setup to pin the new one",
        refused(lib, wrong, CTX));
    assertTrue(
        refused(lib, wrong, null)
            .startsWith("engine library " + lib + " does not match engine.sha256 (pinned 01"),
        refused(lib, wrong, null));
    // a pin of 16 digits or fewer is shown whole; one digit more is cut
    assertTrue(refused(lib, "0123456789abcdef", null).contains("(pinned 0123456789abcdef, file"));
    assertTrue(refused(lib, "0123456789abcdef0", null).contains("(pinned 0123456789abcdef…, f"));
    // a pin that differs late is shown up to the first digit that differs, never like a match
    for (int at : new int[] {16, 20, 62, 63}) {
      char c = sha.charAt(at);
      String late = sha.substring(0, at) + (c == '0' ? '1' : '0') + sha.substring(at + 1);
      String shownPin = late.substring(0, at + 1) + (at == 63 ? "" : "…");
      String shownFile = sha.substring(0, at + 1) + (at == 63 ? "" : "…");
      assertTrue(
          refused(lib, late, null)
              .endsWith(
                  "(pinned "
                      + shownPin
                      + ", file "
                      + shownFile
                      + "): restore the library, or rerun strata-setup to pin the new one"),
          at + ": " + refused(lib, late, null));
    }
    // a pin that is the start of the file's hash: shown whole, the file's up to one digit more
    assertTrue(
        refused(lib, sha.substring(0, 20), null)
            .contains("(pinned " + sha.substring(0, 20) + ", file " + sha.substring(0, 21) + "…)"),
        refused(lib, sha.substring(0, 20), null));
    // through a link: named as the config names it, with the file it opened
    Path link = Files.createSymbolicLink(lib.resolveSibling("libengine.so.1"), lib.getFileName());
    assertTrue(
        refused(link, wrong, CTX)
            .startsWith(
                "engine library " + link + " (a symlink to " + lib + ") does not match engine"),
        refused(link, wrong, CTX));
    Path dirLink = Files.createSymbolicLink(tmp.toRealPath().resolve("cur"), lib.getParent());
    Path via = dirLink.resolve("libengine.so");
    assertTrue(
        refused(via, wrong, CTX)
            .startsWith("engine library " + via + " (resolved: " + lib + ") does not match"),
        refused(via, wrong, CTX));
    assertEquals(0, OpenFiles.on(lib), "a refused library's descriptor is still open");
  }

  @Test
  void aFileThatIsNotALibraryIsRefusedThroughItsLinkAndItsDescriptorClosed() throws IOException {
    Path text = Files.writeString(lib.resolveSibling("notes.txt"), "not a library\n");
    Path link = Files.createSymbolicLink(lib.resolveSibling("libnotes.so"), text.getFileName());
    assertEquals(
        "engine library "
            + link
            + " (a symlink to "
            + text
            + ") is not a shared library (no ELF or Mach-O header; is engine.library the right"
            + " file?)",
        refused(link, null, CTX));
    assertEquals(0, OpenFiles.on(text));
  }

  @Test
  void anOpenLibraryReportsWhatWasCheckedAndHandsNothingOverOnceClosed() throws IOException {
    Path link = Files.createSymbolicLink(lib.resolveSibling("libengine.so.1"), lib.getFileName());
    VerifiedLibrary v = open(link, " " + sha.toUpperCase(java.util.Locale.ROOT) + " ", CTX);
    assertTrue(v.checked().pinned());
    assertEquals(sha, v.checked().sha256());
    assertEquals(lib, v.checked().real());
    assertEquals(link, v.checked().configured());
    assertEquals(VerifiedLibrary.Strategy.FD_PATH, v.checked().strategy());
    String handle = v.handOver();
    assertEquals(lib, Path.of(handle).toRealPath()); // /proc/<pid>/fd/N: the checked file
    assertEquals(1, OpenFiles.on(lib));
    v.close();
    v.close(); // twice is fine
    assertEquals(0, OpenFiles.on(lib));
    // the descriptor's number may now name another file: nothing hands it over any more
    IllegalStateException e = assertThrows(IllegalStateException.class, v::handOver);
    assertEquals("engine library " + link + " was closed", e.getMessage());
    assertThrows(IllegalStateException.class, v::fd);
    try (VerifiedLibrary unpinned = open(lib, "   ", null)) {
      assertFalse(unpinned.checked().pinned());
    }
    try (VerifiedLibrary unpinned = open(lib, null, null)) {
      assertFalse(unpinned.checked().pinned());
    }
  }

  @Test
  void theCheckForAConfigAnswersTheHashForItsHostsLoader() {
    assertEquals(sha, VerifiedLibrary.checkForConfig(lib, CTX, LibraryFile.Format.ELF));
    StrataException mac =
        assertThrows(
            StrataException.class,
            () -> VerifiedLibrary.checkForConfig(lib, CTX, LibraryFile.Format.MACH_O));
    assertEquals(
        "engine library "
            + lib
            + " is an ELF library (Linux); this Mac loads Mach-O .dylib files: build the engine"
            + " for macOS",
        mac.getMessage());
  }

  @Test
  void theIsolatedChildRefusesWhatIsNotTheCheckedFileAndClosesIt() throws IOException {
    try (VerifiedLibrary v = open(lib, sha, CTX)) {
      StrataException other =
          assertThrows(
              StrataException.class,
              () -> VerifiedLibrary.openHandedOver(v.handOver(), "ab".repeat(32), lib.toString()));
      assertEquals(
          "engine library "
              + lib
              + " handed to the isolated engine is not the file the launcher checked (sha256 "
              + sha.substring(0, 16)
              + "…, checked abababababababab…)",
          other.getMessage());
      assertEquals(1, OpenFiles.on(lib), "only the launcher's own descriptor is open");
    }
    Path folder = lib.getParent();
    StrataException notFile =
        assertThrows(
            StrataException.class,
            () -> VerifiedLibrary.openHandedOver(folder.toString(), sha, "x"));
    assertEquals(
        "engine library "
            + Path.of("x").toAbsolutePath()
            + " handed to the isolated engine is not a regular file",
        notFile.getMessage());
    assertEquals(0, OpenFiles.on(folder), "the handed-over folder's descriptor is still open");
    StrataException gone =
        assertThrows(
            StrataException.class,
            () -> VerifiedLibrary.openHandedOver(folder.resolve("gone").toString(), sha, "x"));
    assertTrue(
        gone.getMessage().contains(" handed to the isolated engine cannot be opened: "),
        gone.getMessage());
  }

  @Test
  void theIsolatedChildOfThePrivateCopyWayLoadsTheCopyItWasHanded() {
    // macOS's way, run here through its portable parts: the handle is the copy's path
    try (VerifiedLibrary v =
        VerifiedLibrary.open(
            lib, sha, CTX, VerifiedLibrary.Strategy.PRIVATE_COPY, TrustedPath.me())) {
      String copy = v.handOver();
      assertTrue(copy.endsWith("/libengine.so") && !copy.equals(lib.toString()), copy);
      try (VerifiedLibrary child =
          VerifiedLibrary.openHandedOver(
              copy, sha, lib.toString(), VerifiedLibrary.Strategy.PRIVATE_COPY)) {
        assertEquals(copy, child.handOver());
        assertTrue(child.loadedVia().endsWith(": " + copy), child.loadedVia());
        assertTrue(child.checked().pinned());
      }
    }
  }
}
