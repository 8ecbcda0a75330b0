package dev.strata.cli;

/**
 * How a command's {@code main} ends. {@link System#exit} logs the exit through {@code
 * System.getLogger("java.lang.Runtime")} (JDK 17+), and finding that logger's backend runs a {@code
 * ServiceLoader} over the whole class path: every jar of the distribution opened and searched, a
 * short command's largest single cost once its own work needs no jar (docs/PERFORMANCE.md §2). A
 * {@code main} that simply returns ends the JVM the same way — the same shutdown hooks, exit code 0
 * — without that lookup, but only when no other non-daemon thread is alive (the JVM would wait for
 * it). So: return for success when nothing else keeps the JVM up, {@link System#exit} otherwise.
 */
public final class MainExit {
  private MainExit() {}

  /**
   * Ends {@code main} with {@code code}: returns when {@code code} is 0 and {@link
   * #onlyDaemonsBesides} the calling thread (the caller's {@code main} must then return at once),
   * else calls {@link System#exit}.
   *
   * @param code the process's exit code (docs/RELIABILITY.md)
   */
  public static void end(int code) {
    if (code == 0 && onlyDaemonsBesides(Thread.currentThread())) {
      return;
    }
    System.exit(code);
  }

  /**
   * Whether every live platform thread other than {@code self} is a daemon (virtual threads are
   * always daemons), so returning from {@code main} ends the JVM at once.
   */
  static boolean onlyDaemonsBesides(Thread self) {
    ThreadGroup root = self.getThreadGroup();
    while (root.getParent() != null) {
      root = root.getParent();
    }
    Thread[] threads = new Thread[root.activeCount() + 16];
    int n = root.enumerate(threads, true);
    if (n == threads.length) {
      return false; // more threads than counted: not sure, take the safe way
    }
    for (int i = 0; i < n; i++) {
      Thread t = threads[i];
      if (t != self && t.isAlive() && !t.isDaemon()) {
        return false;
      }
    }
    return true;
  }
}
