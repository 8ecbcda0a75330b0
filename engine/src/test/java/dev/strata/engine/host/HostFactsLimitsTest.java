package dev.strata.engine.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host file's size limit at its boundary: a valid host file of exactly 64 KiB (65536 bytes,
 * HostFactsCodec's documented limit, written out here) reads, one byte more is refused with one
 * line and exit code 2.
 */
class HostFactsLimitsTest {
  @TempDir Path dir;

  private static final int LIMIT = 64 * 1024;
  private static final HostFacts HOST =
      new HostFacts("macos", "Apple M4 Pro", 14, 10, 4, 48L << 30, 1009, true, false, "27.0.1", 0);

  /** The canonical JSON of HOST, padded with trailing spaces (valid JSON whitespace) to n bytes. */
  private static String padded(int n) {
    String json = HostFactsCodec.write(HOST);
    assertTrue(json.length() < n);
    String s = json + " ".repeat(n - json.length());
    assertEquals(n, s.getBytes(StandardCharsets.UTF_8).length);
    return s;
  }

  @Test
  void aHostFileOf64KibReadsAndOneByteMoreIsRefused() throws IOException {
    Path ok = dir.resolve("ok.json");
    Files.writeString(ok, padded(LIMIT));
    assertEquals(HOST, HostFactsCodec.read(ok));
    assertEquals(HOST, HostFactsCodec.read(padded(LIMIT), "text"));

    Path big = dir.resolve("big.json");
    Files.writeString(big, padded(LIMIT + 1));
    HostFileException e = assertThrows(HostFileException.class, () -> HostFactsCodec.read(big));
    assertEquals(2, e.exitCode());
    assertEquals(1, e.getMessage().lines().count());
    assertTrue(e.getMessage().startsWith(big + ": larger than 65536 bytes"), e.getMessage());
    HostFileException t =
        assertThrows(HostFileException.class, () -> HostFactsCodec.read(padded(LIMIT + 1), "text"));
    assertEquals(2, t.exitCode());
    assertTrue(t.getMessage().startsWith("text: larger than 65536 bytes"), t.getMessage());
  }
}
