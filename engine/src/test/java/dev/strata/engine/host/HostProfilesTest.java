package dev.strata.engine.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostProfilesTest {
  private static final Path HOSTS = RepoRoot.resolve("templates/hosts");

  @Test
  void indexListsExactlyTheProfileFiles() throws IOException {
    List<String> listed =
        HostProfiles.list().stream().map(HostProfiles.Profile::name).sorted().toList();
    try (Stream<Path> files = Files.list(HOSTS)) {
      List<String> present =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".json"))
              .map(n -> n.substring(0, n.length() - 5))
              .sorted()
              .toList();
      assertEquals(present, listed);
    }
  }

  @Test
  void everyProfileIsCanonicalAndValid() throws IOException {
    for (HostProfiles.Profile p : HostProfiles.list()) {
      HostFacts f = HostProfiles.profile(p.name()).orElseThrow();
      String text = Files.readString(HOSTS.resolve(p.name() + ".json"));
      assertEquals(text, HostFactsCodec.write(f), p.name() + " is in canonical form");
      assertEquals("macos", f.os());
      assertTrue(f.metal4(), p.name() + ": every Apple-silicon Mac on macOS 26+ reports Metal 4");
      assertTrue(
          p.description().startsWith(f.chip() + ","), p.name() + " description names the chip");
      assertEquals(f.memoryBytes() >> 30, Long.parseLong(p.name().replaceAll(".*-", "")), p.name());
    }
  }

  @Test
  void seedMachineAndK4Classes() {
    HostFacts m4 = HostProfiles.load("m4-pro-48");
    assertEquals(
        new HostFacts(
            "macos", "Apple M4 Pro", 14, 10, 4, 48L << 30, 1009, true, false, "27.0.1", 0),
        m4);
    HostFacts m5 = HostProfiles.load("m5-32");
    assertTrue(m5.k4());
    assertEquals(HostFacts.FAMILY_APPLE10, m5.gpuFamily());
    // Only the Apple10 class is k4; every earlier family is not, though all report Metal 4.
    for (HostProfiles.Profile p : HostProfiles.list()) {
      HostFacts f = HostProfiles.load(p.name());
      assertEquals(f.gpuFamily() == 1010, f.k4(), p.name());
    }
    assertEquals(1007, HostProfiles.load("m1-8").gpuFamily());
    assertEquals(1008, HostProfiles.load("m2-pro-32").gpuFamily());
    assertEquals(1009, HostProfiles.load("m3-max-128").gpuFamily());
  }

  @Test
  void anExistingFileWinsAndSaysSo(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("m4-pro-48");
    Files.writeString(file, HostFactsCodec.write(HostFactsCodecTest.LINUX));
    HostProfiles.Loaded loaded = HostProfiles.open(file.toString());
    assertEquals(HostFactsCodecTest.LINUX, loaded.facts());
    assertEquals("file " + file, loaded.source());
    assertEquals("profile m4-pro-48", HostProfiles.open("m4-pro-48").source());
  }

  @Test
  void aRelativeFileIsReadFromTheWorkingFolderAndShownInFull(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("hosts/mine.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, HostFactsCodec.write(HostFactsCodecTest.LINUX));
    HostProfiles.Loaded loaded = HostProfiles.open("hosts/../hosts/mine.json", dir);
    assertEquals(HostFactsCodecTest.LINUX, loaded.facts());
    assertEquals("file " + file, loaded.source());
  }

  @Test
  void unknownNameListsTheProfiles() {
    HostFileException e = assertThrows(HostFileException.class, () -> HostProfiles.load("m9-1"));
    assertTrue(
        e.getMessage().startsWith("m9-1: no such file or host profile (profiles: m1-8, "),
        e.getMessage());
    HostFileException f =
        assertThrows(HostFileException.class, () -> HostProfiles.load("../m4-pro-48"));
    assertEquals("../m4-pro-48: no such file", f.getMessage());
  }
}
