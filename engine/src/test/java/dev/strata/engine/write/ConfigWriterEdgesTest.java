package dev.strata.engine.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.Sha256;
import dev.strata.engine.StrataException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer at its edges: the 16 MiB bound on what it will read at the target (the bound read, one
 * byte more refused with nothing written), the ownership state file's own bound and format, and the
 * words it uses for file-system failures.
 */
class ConfigWriterEdgesTest {
  private static final long SIXTEEN_MIB = 16L << 20;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void sized(Path f, long n) throws IOException {
    try (RandomAccessFile r = new RandomAccessFile(f.toFile(), "rw")) {
      r.setLength(n);
    }
  }

  @Test
  void aFileOf16MibAtTheTargetIsReadAndOneByteMoreIsRefused(@TempDir Path dir) throws IOException {
    Path cfg = dir.resolve("engine.yaml");
    sized(cfg, SIXTEEN_MIB);
    ConfigWriter.Existing at = ConfigWriter.inspect(cfg);
    assertEquals(SIXTEEN_MIB, at.existing().length);
    assertFalse(at.owned()); // never written by setup: kept without --force
    assertThrows(
        ConfigWriter.KeptException.class, () -> ConfigWriter.write(cfg, bytes("a: 1\n"), false));

    sized(cfg, SIXTEEN_MIB + 1);
    StrataException e =
        assertThrows(StrataException.class, () -> ConfigWriter.write(cfg, bytes("a: 1\n"), true));
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertEquals(
        cfg.toAbsolutePath() + ": 16777217 bytes is not a strata config (move it away first)",
        e.getMessage());
    assertEquals(SIXTEEN_MIB + 1, Files.size(cfg)); // nothing written
    assertFalse(Files.exists(ConfigWriter.backupOf(cfg)));
  }

  @Test
  void theStateFileIsReadLineByLineWithinItsBound(@TempDir Path dir) throws IOException {
    Path cfg = dir.resolve("engine.yaml");
    byte[] old = bytes("old: 1\n");
    Files.write(cfg, old);
    Path state = ConfigWriter.stateOf(cfg);
    // blanks around a line are fine; other lines are comments
    Files.writeString(state, "# x\nsha1 nothing\n   sha256 " + Sha256.hex(old) + "   \n");
    assertTrue(ConfigWriter.inspect(cfg).owned());
    assertEquals(
        ConfigWriter.Outcome.REPLACED, ConfigWriter.write(cfg, bytes("new: 1\n"), false).outcome());

    // a state file over 4096 bytes is not one this writer wrote: the config is not recognised
    byte[] now = Files.readAllBytes(cfg);
    String line = "sha256 " + Sha256.hex(now) + "\n";
    Files.writeString(state, "#".repeat(4096 - line.length() - 1) + "\n" + line);
    assertEquals(4096, Files.size(state));
    assertTrue(ConfigWriter.inspect(cfg).owned());
    Files.writeString(state, "#".repeat(4096 - line.length()) + "\n" + line);
    assertEquals(4097, Files.size(state));
    assertFalse(ConfigWriter.inspect(cfg).owned());
    assertThrows(
        ConfigWriter.KeptException.class, () -> ConfigWriter.write(cfg, bytes("x: 1\n"), false));
    assertArrayEquals(now, Files.readAllBytes(cfg));
  }

  @Test
  void fileSystemFailuresAreSaidInPlainWords() {
    assertEquals("permission denied", AtomicFile.reason(new AccessDeniedException("/x")));
    assertEquals("no such file or folder", AtomicFile.reason(new NoSuchFileException("/x")));
    assertEquals(
        "a file is in the way of a folder",
        AtomicFile.reason(new FileAlreadyExistsException("/x")));
    assertEquals(
        "Read-only file system",
        AtomicFile.reason(new FileSystemException("/x", null, "Read-only file system")));
    assertEquals("disk on fire", AtomicFile.reason(new IOException("disk on fire")));
    // no message: plain words, never the exception class name (issue 28, IoReason)
    assertEquals("an input/output error", AtomicFile.reason(new IOException()));
  }

  @Test
  void aFileWhereAFolderMustBeIsNamed(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("conf");
    Files.writeString(file, "not a folder\n");
    StrataException e =
        assertThrows(
            StrataException.class,
            () -> ConfigWriter.write(file.resolve("engine.yaml"), bytes("a: 1\n"), false));
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
    assertEquals("not a folder\n", Files.readString(file));
  }
}
