package dev.strata.metal;

import dev.strata.engine.trust.OutputPlace;
import dev.strata.engine.trust.TrustedPath;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Runs the native GPU query so that a crash or a hang in it never leaves the user stuck
 * (docs/PROBE.md, "When the GPU probe fails").
 *
 * <ul>
 *   <li>{@code STRATA_PROBE=sysctl-only}: the query is not run.
 *   <li>Before the query, a marker file {@code metal-probe-<pid>.marker} goes into the user's cache
 *       folder; it is removed when the query returns. A native fault kills the JVM before that, so
 *       the next run finds a marker whose process is gone: it says so in one line, does not run the
 *       query, and keeps the marker (every later run does the same) until the user removes it.
 *   <li>The query runs on a daemon thread; if it has not returned after the timeout, this run goes
 *       on without it and marks its marker {@code state=hung}, so later runs skip it too.
 * </ul>
 *
 * A skipped query gives {@link GpuReport#skipped}: the probe then takes the GPU facts from the chip
 * name and says so. A marker of a process that is still running (another probe at the same moment)
 * is not a crash.
 */
final class GpuProbeGuard {
  /** The environment variable; {@link #SYSCTL_ONLY} is its one value. */
  static final String ENV = "STRATA_PROBE";

  static final String SYSCTL_ONLY = "sysctl-only";

  /** Metal answers in milliseconds; ten seconds is a hang, not a slow Mac. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  private static final Pattern MARKER = Pattern.compile("metal-probe-\\d{1,10}\\.marker");

  private final Optional<Path> folder;
  private final Duration timeout;
  private final String mode;

  /**
   * @param folder the user's cache folder (created when missing); empty when there is none (no
   *     HOME): the query then runs unguarded and a note says so
   * @param timeout how long the query may take
   * @param mode the value of {@link #ENV}, or null
   */
  GpuProbeGuard(Optional<Path> folder, Duration timeout, String mode) {
    this.folder = folder;
    this.timeout = timeout;
    this.mode = mode;
  }

  /**
   * The value of {@link #ENV} must be empty or {@value #SYSCTL_ONLY}.
   *
   * @return the message for any other value, or empty
   */
  static Optional<String> checkMode(String mode) {
    if (mode == null || mode.isEmpty() || mode.equals(SYSCTL_ONLY)) {
      return Optional.empty();
    }
    // The value is not echoed: it could hold anything, terminal escapes included.
    return Optional.of(
        ENV
            + " is set to something other than "
            + SYSCTL_ONLY
            + ": use "
            + ENV
            + "="
            + SYSCTL_ONLY
            + " (skip the Metal query) or unset it");
  }

  /** Runs {@code query} under the marker and the watchdog, or skips it; never throws. */
  GpuReport run(Supplier<GpuReport> query) {
    if (SYSCTL_ONLY.equals(mode)) {
      return GpuReport.skipped("not asked (" + ENV + "=" + SYSCTL_ONLY + ")", "");
    }
    if (folder.isEmpty()) {
      return query
          .get()
          .noted(
              "Metal: no cache folder (HOME is not set), so a crash in the GPU probe would not be"
                  + " remembered; if it crashes, run with "
                  + ENV
                  + "="
                  + SYSCTL_ONLY);
    }
    Path dir = folder.get();
    Optional<Dead> dead = findDead(dir);
    if (dead.isPresent()) {
      Dead d = dead.get();
      return GpuReport.skipped(
          "the GPU probe of an earlier run did not finish (pid "
              + d.pid
              + ", started "
              + d.started
              + (d.hung ? ", hung" : ", crashed")
              + "), so it is not run again",
          "please report it with this line, the output of 'strata-setup probe --json' and, if"
              + " there is one, the hs_err_pid"
              + d.pid
              + ".log file the crash left where it ran (docs/PROBE.md); remove "
              + d.file
              + " to try the GPU probe again");
    }
    Path mine;
    try {
      mine = writeMarker(dir);
    } catch (IOException | RuntimeException e) {
      return query
          .get()
          .noted(
              "Metal: cannot write the probe marker in "
                  + dir
                  + " ("
                  + e.getMessage()
                  + "), so a crash in the GPU probe would not be remembered; if it crashes, run"
                  + " with "
                  + ENV
                  + "="
                  + SYSCTL_ONLY);
    }
    CompletableFuture<GpuReport> result = new CompletableFuture<>();
    Thread worker =
        Thread.ofPlatform()
            .daemon(true)
            .name("strata-metal-probe")
            .unstarted(
                () -> {
                  try {
                    result.complete(query.get());
                  } catch (Throwable t) {
                    result.completeExceptionally(t);
                  }
                });
    worker.start();
    try {
      GpuReport r = result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      deleteQuietly(mine);
      return r;
    } catch (TimeoutException e) {
      markHung(mine);
      return GpuReport.skipped(
          "the GPU probe did not answer within "
              + (timeout.toMillis() % 1000 == 0
                  ? timeout.toSeconds() + " s"
                  : timeout.toMillis() + " ms")
              + ", so this run goes on without it (and later runs skip it)",
          "please report it with this line and the output of 'strata-setup probe --json'"
              + " (docs/PROBE.md); remove "
              + mine
              + " to try the GPU probe again");
    } catch (ExecutionException e) {
      deleteQuietly(mine);
      Throwable c = e.getCause() != null ? e.getCause() : e;
      return GpuReport.none("the query failed (" + c.getMessage() + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      deleteQuietly(mine);
      return GpuReport.none("the query was interrupted");
    }
  }

  /** A marker left by a probe that did not finish. */
  private record Dead(Path file, long pid, String started, boolean hung) {}

  private static Optional<Dead> findDead(Path dir) {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "metal-probe-*.marker")) {
      for (Path f : files) {
        if (!MARKER.matcher(f.getFileName().toString()).matches()
            || !Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        Map<String, String> m = read(f);
        long pid = parsePid(m.get("pid"));
        boolean hung = "hung".equals(m.get("state"));
        if (hung || !alive(pid, m.get("process_start"))) {
          return Optional.of(new Dead(f, pid, instant(m.get("started")), hung));
        }
      }
    } catch (IOException | RuntimeException e) {
      // An unreadable cache folder is not a crash: the probe runs.
    }
    return Optional.empty();
  }

  private static Map<String, String> read(Path f) {
    Map<String, String> m = new HashMap<>();
    try {
      if (Files.size(f) > 4096) {
        return m;
      }
      for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          m.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
        }
      }
    } catch (IOException | RuntimeException e) {
      // unreadable: treated as a dead probe's marker
    }
    return m;
  }

  /** The marker's start time if it is one (the file could hold anything), else "unknown". */
  private static String instant(String s) {
    try {
      return s == null ? "unknown" : Instant.parse(s).toString();
    } catch (java.time.format.DateTimeParseException e) {
      return "unknown";
    }
  }

  private static long parsePid(String s) {
    try {
      return s == null ? -1 : Long.parseLong(s);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** A process with this pid runs and started when the marker says (not a reused pid). */
  private static boolean alive(long pid, String processStart) {
    if (pid <= 0) {
      return false;
    }
    Optional<ProcessHandle> p = ProcessHandle.of(pid);
    if (p.isEmpty() || !p.get().isAlive()) {
      return false;
    }
    Optional<Instant> start = p.get().info().startInstant();
    // Without a start instant on either side the pid alone decides.
    return start.isEmpty()
        || processStart == null
        || processStart.isBlank()
        || start.get().toString().equals(processStart);
  }

  private static Path writeMarker(Path dir) throws IOException {
    ProcessHandle self = ProcessHandle.current();
    Path f = dir.resolve("metal-probe-" + self.pid() + ".marker");
    // where every command writes: launch's rule for the folder, checked before it is made
    // (docs/RELIABILITY.md, "Where files are written"); a refusal only leaves the probe unguarded
    boolean made = !Files.isDirectory(dir);
    OutputPlace.prepare(f, TrustedPath.Subject.output("GPU probe marker", null));
    if (made) {
      try {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system: its default permissions stand
      }
    }
    String text =
        "# strata: the Metal GPU probe is running; a file left here means it crashed or hung\n"
            + "pid="
            + self.pid()
            + "\nstarted="
            + Instant.now()
            + "\nprocess_start="
            + self.info().startInstant().map(Instant::toString).orElse("")
            + "\nstate=running\n";
    // A marker of ours from an earlier probe in this same process (a second probe call) is
    // replaced; a link or another user's file at the name is refused (OutputPlace.createNew).
    try (FileChannel ch =
        OutputPlace.createNew(f, TrustedPath.Subject.output("GPU probe marker", null))) {
      ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
      while (b.hasRemaining()) {
        ch.write(b);
      }
    }
    return f;
  }

  private static void markHung(Path f) {
    try {
      List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
      StringBuilder b = new StringBuilder();
      for (String l : lines) {
        b.append(l.startsWith("state=") ? "state=hung" : l).append('\n');
      }
      Files.writeString(
          f,
          b.toString(),
          StandardCharsets.UTF_8,
          StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING,
          LinkOption.NOFOLLOW_LINKS); // never through a link put in its place
    } catch (IOException | RuntimeException e) {
      // the marker stays "running" under a live pid: later runs probe again, bounded as this one
    }
  }

  private static void deleteQuietly(Path f) {
    try {
      Files.deleteIfExists(f);
    } catch (IOException e) {
      // a marker we cannot remove makes the next run skip the GPU probe and say so
    }
  }
}
