package dev.strata.engine.model;

import dev.strata.engine.text.ByteSize;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What files take on disk: their apparent size (the length) and what the file system allocated for
 * them, which is far less for sparse files (the demo model: 21 GiB long, a few hundred KiB
 * written). Java has no portable st_blocks, so the allocated size comes from {@code du -k} (GNU and
 * BSD alike print allocated KiB); without du it is unknown and only the apparent size is shown.
 */
public final class DiskUsage {
  private DiskUsage() {}

  /**
   * Apparent and allocated bytes of a set of files.
   *
   * @param apparent the sum of the file lengths
   * @param allocated the sum of the allocated blocks, or -1 when unknown
   */
  public record Usage(long apparent, long allocated) {
    /**
     * For people: {@code 21.05 GiB} when allocation is unknown or within 10% of the length, else
     * {@code 21.05 GiB apparent, 312.0 KiB allocated (sparse files)}.
     */
    public String describe() {
      if (allocated < 0 || Math.abs(apparent - allocated) <= apparent / 10) {
        return ByteSize.iec(apparent);
      }
      return ByteSize.iec(apparent)
          + " apparent, "
          + ByteSize.iec(allocated)
          + " allocated"
          + (allocated < apparent ? " (sparse files)" : "");
    }
  }

  /** The usage of these files (regular files; a missing one counts 0). */
  public static Usage of(List<Path> files) {
    long apparent = 0;
    List<String> cmd = new ArrayList<>(List.of("du", "-k"));
    for (Path p : files) {
      try {
        apparent += Files.size(p);
      } catch (IOException e) {
        // gone since it was read: counts 0
      }
      cmd.add(p.toAbsolutePath().toString());
    }
    return new Usage(apparent, allocated(cmd));
  }

  private static long allocated(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(5, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        return -1;
      }
      long kib = 0;
      for (String line : out.split("\n")) {
        int tab = line.indexOf('\t');
        String n = (tab > 0 ? line.substring(0, tab) : line).strip();
        if (n.isEmpty()) {
          continue;
        }
        if (!n.chars().allMatch(c -> c >= '0' && c <= '9') || n.length() > 15) {
          return -1;
        }
        kib += Long.parseLong(n);
      }
      return kib * 1024;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
