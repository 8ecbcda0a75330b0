package dev.strata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link MainExit} may return from {@code main} only when nothing else keeps the JVM up: a live
 * non-daemon thread must make it take {@link System#exit}, or the command would hang after its
 * work. Checked in this JVM against {@link Thread#getAllStackTraces} and in real child JVMs.
 */
class MainExitTest {

  @Test
  void aLiveNonDaemonThreadInAnyGroupIsSeen() throws Exception {
    CountDownLatch stop = new CountDownLatch(1);
    Thread t = new Thread(new ThreadGroup("main-exit-test"), () -> await(stop), "non-daemon");
    t.start();
    try {
      assertFalse(MainExit.onlyDaemonsBesides(Thread.currentThread()));
      assertEquals(byStackTraces(), MainExit.onlyDaemonsBesides(Thread.currentThread()));
    } finally {
      stop.countDown();
      t.join();
    }
  }

  @Test
  void agreesWithTheJvmsOwnThreadListWithDaemonsOnly() throws Exception {
    CountDownLatch stop = new CountDownLatch(1);
    Thread d = new Thread(() -> await(stop), "daemon");
    d.setDaemon(true);
    d.start();
    try {
      assertEquals(byStackTraces(), MainExit.onlyDaemonsBesides(Thread.currentThread()));
    } finally {
      stop.countDown();
      d.join();
    }
  }

  /** A real {@code main}: success returns, a failure exits with its code, a busy JVM still ends. */
  @Test
  void aChildJvmEndsWithTheCodeAndNeverWaitsForAThread() throws Exception {
    assertEquals(0, child("0", "daemon"));
    assertEquals(3, child("3", "none"));
    assertEquals(0, child("0", "non-daemon")); // returned would hang: it must System.exit
  }

  private static int child(String code, String thread) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                List.of(
                    java,
                    "-cp",
                    System.getProperty("java.class.path"),
                    Child.class.getName(),
                    code,
                    thread))
            .redirectErrorStream(true)
            .start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the child JVM did not end (code " + code + ", " + thread + ")");
    }
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(out.isEmpty(), out);
    return p.exitValue();
  }

  /** The child: starts the named kind of thread, which would run forever, then ends main. */
  static final class Child {
    public static void main(String[] args) {
      if (!args[1].equals("none")) {
        Thread t = new Thread(() -> await(new CountDownLatch(1)), args[1]);
        t.setDaemon(args[1].equals("daemon"));
        t.start();
      }
      MainExit.end(Integer.parseInt(args[0]));
    }
  }

  private static boolean byStackTraces() {
    Thread self = Thread.currentThread();
    return Thread.getAllStackTraces().keySet().stream()
        .noneMatch(t -> t != self && t.isAlive() && !t.isDaemon());
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
