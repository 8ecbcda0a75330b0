package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apparent and allocated sizes: the words at the 10% rule's edges, and {@code du -k}'s figures
 * against stat(1)'s {@code %b} blocks of {@code %B} bytes (what du sums, rounded up to KiB), for a
 * written file, a sparse one and a set of both; a missing file leaves the allocation unknown.
 */
class DiskUsageTest {
  @TempDir Path dir;

  @Test
  void withinTenPercentOnlyTheApparentSizeIsShown() {
    assertEquals("1000 B", new DiskUsage.Usage(1000, -1).describe());
    assertEquals("0 B", new DiskUsage.Usage(0, 0).describe());
    // 10 KiB apparent: 1 KiB either way is within 10%, one byte more is not
    assertEquals("10.0 KiB", new DiskUsage.Usage(10_240, 9_216).describe());
    assertEquals("10.0 KiB", new DiskUsage.Usage(10_240, 11_264).describe());
    assertEquals(
        "10.0 KiB apparent, 9.0 KiB allocated (sparse files)",
        new DiskUsage.Usage(10_240, 9_215).describe());
    assertEquals(
        "10.0 KiB apparent, 11.0 KiB allocated", new DiskUsage.Usage(10_240, 11_265).describe());
    assertEquals(
        "100 B apparent, 0 B allocated (sparse files)", new DiskUsage.Usage(100, 0).describe());
  }

  /** What stat(1) says the file occupies: %b blocks of %B bytes, rounded up to KiB as du -k. */
  private static long statAllocated(Path p) throws IOException, InterruptedException {
    Process stat =
        new ProcessBuilder("stat", "-c", "%b %B", p.toString()).redirectErrorStream(true).start();
    String[] out =
        new String(stat.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip().split(" ");
    assertEquals(0, stat.waitFor());
    long bytes = Long.parseLong(out[0]) * Long.parseLong(out[1]);
    return (bytes + 1023) / 1024 * 1024;
  }

  @Test
  void duFiguresAgreeWithStatForWrittenAndSparseFiles() throws Exception {
    // 1,900 KiB written: its du figure holds the digits 0 and 9
    Path written = dir.resolve("written.bin");
    Files.write(written, new byte[1900 * 1024]);
    Path sparse = dir.resolve("sparse.bin");
    try (RandomAccessFile f = new RandomAccessFile(sparse.toFile(), "rw")) {
      f.write(new byte[4096]);
      f.setLength(64L << 20);
    }
    long w = statAllocated(written);
    long s = statAllocated(sparse);
    DiskUsage.Usage one = DiskUsage.of(List.of(written));
    assertEquals(1900 * 1024, one.apparent());
    assertEquals(w, one.allocated());
    DiskUsage.Usage both = DiskUsage.of(List.of(written, sparse));
    assertEquals(1900 * 1024 + (64L << 20), both.apparent());
    assertEquals(w + s, both.allocated());
    assertTrue(s < (64L << 20) / 10, "a sparse file: " + s);
    assertEquals(
        "64.0 MiB apparent, "
            + dev.strata.engine.text.ByteSize.iec(s)
            + " allocated (sparse files)",
        DiskUsage.of(List.of(sparse)).describe());
  }

  @Test
  void aMissingFileCountsZeroAndLeavesTheAllocationUnknown() throws IOException {
    Path written = dir.resolve("written.bin");
    Files.write(written, new byte[4096]);
    DiskUsage.Usage u = DiskUsage.of(List.of(written, dir.resolve("gone.bin")));
    assertEquals(4096, u.apparent());
    assertEquals(-1, u.allocated(), "du fails for the missing file");
    assertEquals("4.0 KiB", u.describe());
  }
}
