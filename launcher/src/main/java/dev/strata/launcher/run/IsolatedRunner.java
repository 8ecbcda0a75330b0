package dev.strata.launcher.run;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.Folders;
import dev.strata.engine.StrataException;
import dev.strata.engine.ffm.VerifiedLibrary;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * {@code --isolate}: the engine runs in a child JVM started from this one — the same java binary
 * and class path, main class {@link EngineChildMain} — and talks back through {@link
 * ChildProtocol}. A native crash then kills only the child; the launcher reports it as one line and
 * exit 70 ({@link CrashReport}).
 *
 * <p>Child JVM options, and why:
 *
 * <ul>
 *   <li>{@code -XX:ErrorFile=<temp>/hs_err_pid%p.log}: HotSpot's crash report goes to a private
 *       folder instead of the user's working directory; the one-line report names it, and the
 *       folder is removed after a clean run;
 *   <li>{@code -XX:-CreateCoredumpOnCrash}: no multi-gigabyte core for a crash the launcher already
 *       explains (the message says to rerun without {@code --isolate} for one);
 *   <li>{@code -Xlog:disable}: HotSpot's unified logging (such as "Loading hsdis library failed"
 *       while it writes a crash report) is not the engine's and would break the one-line report;
 *   <li>{@code --enable-native-access=ALL-UNNAMED}: the child calls the engine through FFM;
 *   <li>the launcher's own start-up options ({@code -XX:+UseSerialGC -XX:TieredStopAtLevel=1}): the
 *       child is short-lived and must start fast.
 * </ul>
 *
 * The banner HotSpot prints on a crash ({@code #} lines) is read for the signal and never shown.
 */
public final class IsolatedRunner implements EngineRunner {
  private final VerifiedLibrary library;
  private final Consumer<String> strayLines;
  private final Object lock = new Object();
  private Process process;
  private boolean cancelRequested;

  /**
   * @param library the engine library preflight checked, held open until the run ends; the child
   *     opens its {@link VerifiedLibrary#handOver()} (never the configured path) and re-hashes it
   * @param strayLines where the child JVM's own non-protocol lines go (standard error)
   */
  public IsolatedRunner(VerifiedLibrary library, Consumer<String> strayLines) {
    this.library = library;
    this.strayLines = strayLines;
  }

  /** The child's command line: this JVM's java binary and class path. */
  static List<String> command(Path errorDir, List<String> childArgs) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-Xshare:auto");
    cmd.add("-XX:-CreateCoredumpOnCrash");
    cmd.add("-Xlog:disable"); // no unified-logging chatter (hsdis, os warnings) on a crash
    cmd.add("-XX:ErrorFile=" + errorDir.resolve("hs_err_pid%p.log"));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(EngineChildMain.class.getName());
    cmd.addAll(childArgs);
    return cmd;
  }

  @Override
  public int run(List<String> args, Map<String, String> env, EngineLog log) {
    Path errorDir;
    try {
      errorDir = Files.createTempDirectory("strata-isolate-");
    } catch (IOException e) {
      throw new StrataException(
          ExitCodes.PREFLIGHT,
          "cannot create a temporary folder for --isolate: " + e.getMessage(),
          e);
    }
    List<String> childArgs =
        new ChildProtocol.ChildArgs(
                library.handOver(),
                library.checked().sha256(),
                library.checked().configured().toString(),
                env,
                args)
            .encode();
    ProcessBuilder pb = new ProcessBuilder(command(errorDir, childArgs));
    Process p;
    try {
      synchronized (lock) {
        p = pb.start();
        process = p;
        if (cancelRequested) {
          sendCancel();
        }
      }
    } catch (IOException e) {
      Folders.deleteQuietly(errorDir);
      throw new StrataException(
          ExitCodes.PREFLIGHT, "cannot start the isolated engine process: " + e.getMessage(), e);
    }

    Records records = new Records();
    Thread stdout = pump("strata-isolate-out", p.getInputStream(), records, log);
    Thread stderr = pump("strata-isolate-err", p.getErrorStream(), records, log);
    int status;
    try {
      status = p.waitFor();
      stdout.join();
      stderr.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new StrataException(ExitCodes.INTERRUPTED, "interrupted while waiting for the engine");
    }

    if (records.fail != null) {
      Folders.deleteQuietly(errorDir);
      throw new StrataException(records.failCode, records.fail);
    }
    if (records.exit != null) {
      Folders.deleteQuietly(errorDir);
      return records.exit;
    }
    Path report = findReport(errorDir);
    if (report == null) {
      Folders.deleteQuietly(errorDir);
    }
    throw new EngineCrashedException(CrashReport.describe(status, records.banner, report));
  }

  @Override
  public void cancel() {
    synchronized (lock) {
      cancelRequested = true;
      if (process != null) {
        sendCancel();
      }
    }
  }

  @Override
  public void abandon() {
    synchronized (lock) {
      if (process != null) {
        process.destroyForcibly();
      }
    }
  }

  private void sendCancel() {
    try {
      OutputStream in = process.getOutputStream();
      in.write((ChildProtocol.CANCEL + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    } catch (IOException e) {
      // The child is already gone: nothing left to stop.
    }
  }

  /** What the child reported; written by the two pump threads, read after both are joined. */
  private static final class Records {
    final List<String> banner = Collections.synchronizedList(new ArrayList<>());
    volatile Integer exit;
    volatile String fail;
    volatile int failCode;
  }

  private Thread pump(String name, InputStream stream, Records records, EngineLog log) {
    return Thread.ofPlatform()
        .daemon()
        .name(name)
        .start(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  dispatch(line, records, log);
                }
              } catch (IOException | UncheckedIOException e) {
                // The child closed its end: the exit status tells the rest.
              }
            });
  }

  private void dispatch(String line, Records records, EngineLog log) {
    if (line.startsWith(ChildProtocol.LOG)) {
      String rest = line.substring(ChildProtocol.LOG.length());
      int colon = rest.indexOf(':');
      int level = colon > 0 ? parseOr(rest.substring(0, colon), EngineLog.ERROR) : EngineLog.ERROR;
      log.line(level, colon > 0 ? rest.substring(colon + 1) : rest);
    } else if (line.startsWith(ChildProtocol.EXIT)) {
      records.exit = parseOr(line.substring(ChildProtocol.EXIT.length()), 1);
    } else if (line.startsWith(ChildProtocol.FAIL)) {
      String rest = line.substring(ChildProtocol.FAIL.length());
      int colon = rest.indexOf(':');
      records.failCode =
          colon > 0 ? parseOr(rest.substring(0, colon), ExitCodes.PREFLIGHT) : ExitCodes.PREFLIGHT;
      records.fail = colon > 0 ? rest.substring(colon + 1) : rest;
    } else if (line.startsWith("#")) {
      records.banner.add(line);
    } else if (!line.isBlank()) {
      strayLines.accept(line);
    }
  }

  private static int parseOr(String s, int fallback) {
    try {
      return Integer.parseInt(s.strip());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  private static Path findReport(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.getFileName().toString().startsWith("hs_err"))
          .findFirst()
          .orElse(null);
    } catch (IOException e) {
      return null;
    }
  }
}
