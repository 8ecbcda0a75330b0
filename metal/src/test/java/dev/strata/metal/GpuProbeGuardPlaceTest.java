package dev.strata.metal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU probe's crash marker is written under the rule of every writer (docs/RELIABILITY.md,
 * "Where files are written"): in a cache folder others may write, no marker is written (the query
 * still runs, unguarded, and a note says why).
 */
@EnabledOnOs(OS.LINUX)
class GpuProbeGuardPlaceTest {
  @TempDir Path tmp;

  @Test
  void noMarkerInAFolderOthersMayWriteTheQueryStillRuns() throws IOException {
    Path cache = Files.createDirectories(tmp.toRealPath().resolve("cache"));
    Files.setAttribute(cache, "unix:mode", 0777);
    java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();
    GpuReport r =
        new GpuProbeGuard(Optional.of(cache), Duration.ofSeconds(30), null)
            .run(
                () -> {
                  ran.incrementAndGet();
                  return GpuReport.none("stand-in query ran");
                });
    assertEquals(1, ran.get(), "the query runs, unguarded");
    assertTrue(
        r.notes().stream()
            .anyMatch(
                n ->
                    n.startsWith("Metal: cannot write the probe marker in " + cache)
                        && n.contains("is writable by group and others")),
        r.notes().toString());
    try (Stream<Path> s = Files.list(cache)) {
      assertEquals(List.of(), s.toList());
    }
  }

  @Test
  void aFolderOfTheUsersOwnGetsItsMarkerAndLosesItAfterwards() throws IOException {
    Path cache = tmp.toRealPath().resolve("new/cache");
    GpuReport r =
        new GpuProbeGuard(Optional.of(cache), Duration.ofSeconds(30), null)
            .run(() -> GpuReport.none("stand-in query ran"));
    assertTrue(
        r.notes().stream().noneMatch(n -> n.contains("cannot write the probe marker")),
        r.notes().toString());
    assertEquals(
        "rwx------",
        java.nio.file.attribute.PosixFilePermissions.toString(
            Files.getPosixFilePermissions(cache)));
    try (Stream<Path> s = Files.list(cache)) {
      assertEquals(List.of(), s.toList(), "the marker of a finished probe is removed");
    }
  }
}
