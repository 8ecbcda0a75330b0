package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.launcher.run.EngineChildMain;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * strata-launch as its own process: SIGINT and SIGTERM during a long run, and {@code --isolate}
 * with strata-ref's injected faults. The codes are asserted, never the time (the run is long enough
 * that only a working cancel ends it within the test's generous timeout).
 */
@DisabledOnOs(OS.WINDOWS)
class SignalsAndIsolateE2eTest {
  @RegisterExtension static final E2e.Demo demo = new E2e.Demo();

  /** Minutes of decode work for strata-ref: ended only by the signal. */
  static final List<String> LONG = List.of("--prompt-tokens", "4096", "--n-predict", "60000");

  /**
   * The launchers this test started: a failed test must not leave minutes of engine work behind.
   */
  private static final List<Running> RUNNING = new CopyOnWriteArrayList<>();

  @AfterEach
  void endWhatIsStillRunning() {
    for (Running r : RUNNING) {
      r.process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      r.process.destroyForcibly();
    }
    RUNNING.clear();
  }

  /** A running launcher, its output collected; {@link #started} opens on the engine's kv line. */
  static final class Running {
    final Process process;
    final CountDownLatch started = new CountDownLatch(1);
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final Thread outPump;
    private final Thread errPump;

    Running(List<String> args) throws IOException {
      process = E2e.launcherProcess(args).start();
      RUNNING.add(this);
      process.getOutputStream().close();
      outPump = E2e.pump(process.getInputStream(), outBytes, this::watchForKv);
      errPump = E2e.pump(process.getErrorStream(), errBytes, () -> {});
    }

    private void watchForKv() {
      if (started.getCount() > 0 && out().lines().anyMatch(l -> l.startsWith("kv: format="))) {
        started.countDown();
      }
    }

    /** Standard output so far. */
    String out() {
      return E2e.text(outBytes);
    }

    /** Standard error so far. */
    String err() {
      return E2e.text(errBytes);
    }

    int waitFor() throws InterruptedException {
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        // keep the launcher's threads in the failure, so it says where it waited (a SIGHUP the
        // launcher never handled, when it was started with SIGHUP ignored: E2e.launcherProcess)
        String threads = threadDump(process.pid());
        process.destroyForcibly();
        throw new AssertionError("the launcher did not end:\n" + out() + err() + threads);
      }
      outPump.join();
      errPump.join();
      return process.exitValue();
    }
  }

  /** The launcher's threads (jcmd of the JDK running the tests), or why there are none. */
  private static String threadDump(long pid) {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    try {
      Process p =
          new ProcessBuilder(jcmd.toString(), Long.toString(pid), "Thread.print")
              .redirectErrorStream(true)
              .start();
      String dump = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(30, TimeUnit.SECONDS);
      return "\n--- jcmd " + pid + " Thread.print ---\n" + dump;
    } catch (IOException e) {
      return "\n(no thread dump: " + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "\n(no thread dump: interrupted)";
    }
  }

  private static void kill(String signal, long pid) throws IOException, InterruptedException {
    Process k = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
    assertTrue(k.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, k.exitValue());
  }

  private static Path config(String name, List<String> extra) throws IOException {
    return demo.config(name, 65_536, extra, Map.of());
  }

  /** strata-launch (its own JVM) of a long run of its own config, once the engine started. */
  private static Running started(String name, String... more) throws Exception {
    List<String> args = new ArrayList<>(List.of("--config", config(name, LONG).toString()));
    args.addAll(List.of(more));
    Running r = new Running(args);
    assertTrue(r.started.await(120, TimeUnit.SECONDS), "the engine started:\n" + r.err());
    return r;
  }

  /**
   * A signal during a long run exits 128 + its number: SIGINT 130 (saying it stops the engine),
   * SIGTERM 143, SIGHUP 129 (cancelled, naming SIGHUP); an empty {@code says} checks the code only.
   */
  @ParameterizedTest(name = "SIG{1} during a long run exits {2}")
  @CsvSource({
    "long.yaml, INT, 130, 'strata-launch: interrupted: stopping the engine'",
    "long-term.yaml, TERM, 143, ",
    "long-hup.yaml, HUP, 129, SIGHUP"
  })
  void aSignalDuringALongRunExitsWithItsCode(String config, String signal, int code, String says)
      throws Exception {
    Running r = started(config);
    kill(signal, r.process.pid());
    assertEquals(code, r.waitFor(), r.err());
    if (says != null) {
      assertTrue(r.err().contains(says), r.err());
    }
  }

  @Test
  void sigtermToTheIsolatedChildIsReportedAs143() throws Exception {
    Running r = started("long-iso-term.yaml", "--isolate");
    // the child printed the kv line, so it is running; give /proc a moment all the same
    ProcessHandle child = null;
    for (int i = 0; i < 100 && child == null; i++) {
      child =
          r.process
              .toHandle()
              .children()
              .filter(SignalsAndIsolateE2eTest::isEngineChild)
              .findFirst()
              .orElse(null);
      if (child == null) {
        Thread.sleep(100);
      }
    }
    if (child == null) {
      throw new AssertionError(
          "no isolated child among "
              + r.process.toHandle().children().map(h -> h.pid() + " " + h.info()).toList()
              + ":\n"
              + r.err());
    }
    kill("TERM", child.pid());
    assertEquals(143, r.waitFor(), r.err());
  }

  /**
   * Whether {@code h} runs {@code EngineChildMain}: one of its arguments is that class's name. Read
   * from {@code /proc/PID/cmdline} in full where there is one: {@link
   * ProcessHandle.Info#commandLine} on Linux reads only its first 4,096 bytes (a page) and gives no
   * arguments past them, and the child's class name comes after the class path, which alone is
   * longer than that in this module.
   */
  static boolean isEngineChild(ProcessHandle h) {
    String main = EngineChildMain.class.getName();
    Path cmdline = Path.of("/proc", Long.toString(h.pid()), "cmdline");
    if (Files.isDirectory(Path.of("/proc/self"))) {
      try {
        String all = new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8);
        return List.of(all.split("\0")).contains(main);
      } catch (IOException e) {
        return false; // gone, or not ours to read
      }
    }
    return h.info().arguments().map(a -> List.of(a).contains(main)).orElse(false);
  }

  @Test
  void sigintIsForwardedToAnIsolatedEngine() throws Exception {
    Running r = started("long-iso.yaml", "--isolate");
    kill("INT", r.process.pid());
    assertEquals(130, r.waitFor(), r.err());
  }

  private static List<String> faultArgs(String fault) {
    List<String> a = new ArrayList<>(List.of("--prompt-tokens", "8", "--n-predict", "2"));
    a.addAll(List.of("--fault", fault));
    return a;
  }

  /** An isolated run whose engine injects {@code fault}: it ended with exit 70. */
  private static Running crashedIsolated(String fault) throws Exception {
    Running r =
        new Running(
            List.of("--config", config(fault + ".yaml", faultArgs(fault)).toString(), "--isolate"));
    assertEquals(70, r.waitFor(), r.out() + "\n" + r.err());
    return r;
  }

  @Test
  void anIsolatedSegfaultIsOneLineAndExit70() throws Exception {
    Running r = crashedIsolated("segv");
    List<String> crash =
        r.err().lines().filter(l -> l.startsWith("strata-launch: engine crashed")).toList();
    assertEquals(1, crash.size(), r.err());
    assertTrue(crash.getFirst().contains("signal 11 (SIGSEGV)"), crash.getFirst());
    assertTrue(!r.out().contains("A fatal error has been detected"), r.out());
    assertTrue(!r.err().contains("A fatal error has been detected"), r.err());
    assertTrue(!r.err().contains("\tat "), "no stack trace");
    // what the engine said before it faulted still came through, as it came
    assertTrue(r.err().contains("warn: fault: injecting segv"), r.err());
  }

  @Test
  void anIsolatedAbortIsOneLineAndExit70() throws Exception {
    Running r = crashedIsolated("abort");
    assertTrue(r.err().contains("strata-launch: engine crashed: signal 6 (SIGABRT)"), r.err());
  }

  @Test
  void anIsolatedRunPassesTheEngineLinesAndCodeThrough() throws Exception {
    Running r =
        new Running(
            List.of(
                "--config",
                config("iso.yaml", List.of("--prompt-tokens", "8", "--n-predict", "2")).toString(),
                "--isolate"));
    assertEquals(0, r.waitFor(), r.err());
    assertTrue(r.out().contains("kv: format=int8 cell_bytes=1056 layers=12 cells=65664"), r.out());
    assertTrue(r.out().contains("decode: tokens=2 "), r.out());
  }
}
