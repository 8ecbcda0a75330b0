package dev.strata.engine.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.trust.TrustedPath;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write cleans up what an interrupted one left (a SIGKILL between temp file and rename): its own
 * temp names only, regular files of this user only, never through a link.
 */
@DisabledOnOs(OS.WINDOWS)
class StaleTempsTest {
  @TempDir Path tmp;
  Path dir;
  Path config;

  @BeforeEach
  void folder() throws IOException {
    dir = Files.createDirectories(tmp.resolve("cfg"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    config = dir.resolve("engine.yaml");
  }

  private Path file(String name) throws IOException {
    return Files.writeString(dir.resolve(name), "x");
  }

  @Test
  void aWriteRemovesTheTempFilesAnInterruptedWriteLeft() throws IOException {
    List<Path> ours =
        List.of(
            file(".engine.yaml.8754290177.tmp"),
            file("..engine.yaml.strata-state.123.tmp"),
            file(".engine.yaml.bak.42.tmp"));
    List<Path> kept =
        List.of(
            file(".engine.yaml.12x.tmp"), // not a name the writer makes
            file(".engine.yaml..tmp"),
            file(".other.yaml.123.tmp"), // another config's
            file("engine.yaml.123.tmp"),
            Files.createDirectories(dir.resolve(".engine.yaml.77.tmp")));
    Path elsewhere = Files.writeString(tmp.resolve("precious"), "keep");
    Path link = Files.createSymbolicLink(dir.resolve(".engine.yaml.99.tmp"), elsewhere);

    ConfigWriter.write(config, "schema: x\n".getBytes(StandardCharsets.UTF_8), false);

    for (Path p : ours) {
      assertFalse(Files.exists(p, LinkOption.NOFOLLOW_LINKS), p + " removed");
    }
    for (Path p : kept) {
      assertTrue(Files.exists(p, LinkOption.NOFOLLOW_LINKS), p + " kept");
    }
    assertTrue(Files.isSymbolicLink(link), "a link of that name is left");
    assertEquals("keep", Files.readString(elsewhere));
    assertEquals("schema: x\n", Files.readString(config));
  }

  @Test
  void anotherUsersFileIsLeft() throws IOException {
    Path p = file(".engine.yaml.5.tmp");
    int someoneElse = TrustedPath.me() + 1;
    assertEquals(0, StaleTemps.remove(List.of(config), someoneElse));
    assertTrue(Files.exists(p));
    assertEquals(1, StaleTemps.remove(List.of(config), TrustedPath.me()));
    assertFalse(Files.exists(p));
  }
}
