package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.StrataException;
import dev.strata.engine.trust.TrustRefused;
import dev.strata.engine.trust.TrustedPath;
import dev.strata.testsupport.LibrarySwapper;
import dev.strata.testsupport.StandInLibrary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library that runs is the one that was checked: real libraries compiled by the test, a real
 * swapper thread, the real loader.
 */
class VerifiedLibraryTest {
  @TempDir static Path dir;
  static Path marker;
  static Path pinned;
  static Path other;
  static String pin;

  @BeforeAll
  static void build() throws Exception {
    marker = dir.resolve("ran.txt");
    Path src = Files.createDirectory(dir.resolve("src"));
    pinned = StandInLibrary.compile(src, "pinned", marker);
    other = StandInLibrary.compile(src, "other", marker);
    pin = VerifiedLibrary.sha256(Files.readAllBytes(pinned));
  }

  static List<String> ran() throws IOException {
    return Files.exists(marker) ? Files.readAllLines(marker) : List.of();
  }

  int raceRounds(VerifiedLibrary.Strategy strategy, int rounds, String sub) throws Exception {
    Path folder = Files.createDirectory(dir.resolve(sub));
    Path target = folder.resolve("libengine.so");
    Files.copy(pinned, target);
    int refused = 0;
    int runs = 0;
    List<String> before = ran();
    try (LibrarySwapper s = new LibrarySwapper(target, other, pinned)) {
      for (int i = 0; i < rounds; i++) {
        NativeEngine e;
        try (VerifiedLibrary v =
            VerifiedLibrary.open(target, pin, "test", strategy, TrustedPath.me())) {
          e = v.load();
        } catch (StrataException x) {
          assertEquals(3, x.exitCode(), x.getMessage());
          refused++;
          continue;
        }
        try {
          assertEquals("pinned", e.name());
          List<String> lines = new ArrayList<>();
          assertEquals(0, e.run(List.of(), (level, line) -> lines.add(line)));
          assertEquals(List.of("pinned: running"), lines);
          runs++;
        } finally {
          e.close();
        }
      }
      assertTrue(s.swaps() >= rounds / 4, "the swapper swapped " + s.swaps() + " times");
    }
    assertEquals(rounds, runs + refused);
    List<String> after = ran().subList(before.size(), ran().size());
    assertFalse(after.contains("other"), "the other library ran: " + after);
    return runs;
  }

  @Test
  void aSwapperRenamingAnotherLibraryOverThePinnedOneNeverGetsItLoaded() throws Exception {
    int runs = raceRounds(VerifiedLibrary.Strategy.here(), 200, "race");
    assertTrue(runs > 0, "no round loaded the pinned library");
  }

  @Test
  void thePrivateCopyWayHoldsTheSameRace() throws Exception {
    // macOS's way (no /proc/self/fd), run here through its portable parts: the copy is loaded.
    int runs = raceRounds(VerifiedLibrary.Strategy.PRIVATE_COPY, 60, "race-copy");
    assertTrue(runs > 0, "no round loaded the pinned library");
  }

  @Test
  void thePrivateCopyLivesInAFreshFolderOnlyTheUserEntersAndIsRemovedOnClose() throws Exception {
    Path folder = Files.createDirectory(dir.resolve("copy"));
    Path lib = Files.copy(pinned, folder.resolve("libengine.so"));
    Path copy;
    try (VerifiedLibrary v =
        VerifiedLibrary.open(
            lib, pin, "test", VerifiedLibrary.Strategy.PRIVATE_COPY, TrustedPath.me())) {
      copy = Path.of(v.handOver());
      assertEquals(
          "rwx------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(copy.getParent())));
      assertEquals("r-x------", PosixFilePermissions.toString(Files.getPosixFilePermissions(copy)));
      assertEquals(pin, VerifiedLibrary.sha256(Files.readAllBytes(copy)));
      assertTrue(v.loadedVia().contains(copy.toString()), v.loadedVia());
      try (NativeEngine e = v.load()) {
        assertEquals("pinned", e.name());
      }
    }
    assertFalse(Files.exists(copy.getParent()), "the private folder is removed on close");
  }

  @Test
  void aCopyThatReadsBackDifferentIsRefused() throws Exception {
    Path priv = PrivateCopy.folder(TrustedPath.me());
    try {
      byte[] bytes = Files.readAllBytes(pinned);
      StrataException e =
          assertThrows(
              StrataException.class,
              () ->
                  PrivateCopy.write(
                      bytes, "00".repeat(32), priv, "libengine.so", TrustedPath.me()));
      assertEquals(3, e.exitCode());
      assertTrue(e.getMessage().contains("reads back different"), e.getMessage());
    } finally {
      try (var s = Files.walk(priv)) {
        s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aDescriptorNameUsedByAnEarlierLoadIsNeverReused() throws Exception {
    // glibc answers dlopen("/proc/self/fd/N") with an already-loaded object of that name: the
    // second library, opened on the descriptor number the first one had, must still be itself.
    Path folder = Files.createDirectory(dir.resolve("reuse"));
    Path a = Files.copy(pinned, folder.resolve("liba.so"));
    Path b = Files.copy(other, folder.resolve("libb.so"));
    NativeEngine first;
    String firstName;
    try (VerifiedLibrary v = VerifiedLibrary.open(a, null, "test")) {
      firstName = v.loadName(v.fd());
      first = v.load();
    }
    try {
      try (VerifiedLibrary w = VerifiedLibrary.open(b, null, "test")) {
        assertEquals(firstName, w.loadName(w.fd()), "the test needs the same descriptor number");
        try (NativeEngine second = w.load()) {
          assertEquals("other", second.name());
        }
      }
      assertEquals("pinned", first.name());
    } finally {
      first.close();
    }
  }

  @Test
  void theIsolatedChildLoadsWhatTheLauncherHandsOverAndReHashesIt() throws Exception {
    Path folder = Files.createDirectory(dir.resolve("hand"));
    Path lib = Files.copy(pinned, folder.resolve("libengine.so"));
    try (VerifiedLibrary v = VerifiedLibrary.open(lib, pin, "test")) {
      // the launcher's path is replaced after the check: the hand-over does not read the path
      Files.copy(other, lib, StandardCopyOption.REPLACE_EXISTING);
      try (VerifiedLibrary child =
              VerifiedLibrary.openHandedOver(v.handOver(), v.checked().sha256(), lib.toString());
          NativeEngine e = child.load()) {
        assertEquals("pinned", e.name());
      }
      StrataException wrong =
          assertThrows(
              StrataException.class,
              () -> VerifiedLibrary.openHandedOver(v.handOver(), "ab".repeat(32), lib.toString()));
      assertEquals(3, wrong.exitCode());
      assertTrue(wrong.getMessage().contains("not the file the launcher checked"));
    }
  }

  @Test
  void aMismatchedPinATextFileAndAGroupWritableLibraryAreRefused() throws Exception {
    Path folder = Files.createDirectory(dir.resolve("bad"));
    Path lib = Files.copy(other, folder.resolve("libengine.so"));
    StrataException mismatch =
        assertThrows(
            StrataException.class,
            () -> VerifiedLibrary.open(lib, pin, "engine.library in c.yaml"));
    assertEquals(3, mismatch.exitCode());
    assertTrue(
        mismatch.getMessage().contains("does not match engine.sha256"), mismatch.getMessage());

    Path text = folder.resolve("libtext.so");
    Files.writeString(text, "not a library\n", StandardCharsets.UTF_8);
    StrataException notLib =
        assertThrows(StrataException.class, () -> VerifiedLibrary.open(text, null, null));
    assertTrue(notLib.getMessage().contains("is not a shared library"), notLib.getMessage());

    Files.setPosixFilePermissions(lib, PosixFilePermissions.fromString("rwxrwxr-x"));
    TrustRefused gw =
        assertThrows(
            TrustRefused.class, () -> VerifiedLibrary.open(lib, null, "engine.library in c.yaml"));
    assertTrue(gw.getMessage().contains("is writable by its group"), gw.getMessage());
    assertTrue(gw.getMessage().contains("chmod go-w " + lib.toRealPath()), gw.getMessage());
    assertTrue(gw.getMessage().contains("mode 0775"), gw.getMessage());
  }

  @Test
  void aMissingLibraryIsOneLineNamingIt() {
    Path lib = dir.resolve("nowhere/libnope.so");
    StrataException e =
        assertThrows(
            StrataException.class,
            () -> VerifiedLibrary.open(lib, null, "engine.library in c.yaml"));
    assertEquals(3, e.exitCode());
    assertTrue(e.getMessage().startsWith("engine library not found: " + lib), e.getMessage());
    assertNotEquals(-1, e.getMessage().indexOf("engine.library in c.yaml"));
  }
}
