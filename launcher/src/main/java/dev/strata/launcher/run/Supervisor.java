package dev.strata.launcher.run;

import dev.strata.cli.SignalTrap;
import dev.strata.engine.ExitCodes;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * Runs an engine under the launcher's signal policy:
 *
 * <ul>
 *   <li>first SIGINT, SIGTERM or SIGHUP → {@link EngineRunner#cancel()}; once the engine has
 *       returned and its last lines are flushed the launcher exits 130 (SIGINT), 143 (SIGTERM) or
 *       129 (SIGHUP), whatever code the cancelled engine returned;
 *   <li>a second SIGINT → flush and exit 130 at once, without waiting for the engine;
 *   <li>an engine that has not returned {@link #GRACE} after the cancel is abandoned the same way
 *       (strata-ref returns within 100 ms; the grace only guards against an engine that ignores
 *       cancel).
 * </ul>
 */
public final class Supervisor {
  /** How long a cancelled engine may take to return before the launcher exits without it. */
  public static final Duration GRACE = Duration.ofSeconds(3);

  /** How often the cancel is repeated while the engine has not returned. */
  static final Duration RECANCEL = Duration.ofMillis(100);

  private final EngineRunner runner;
  private final LogRouter log;
  private final PrintWriter err;
  private final IntConsumer halt;
  private final Duration grace;
  private final Object lock = new Object();
  private int firstSignal; // 0 until a signal arrives
  private boolean finished;

  /**
   * @param halt exits the process at once with the given code ({@code Runtime::halt} in the
   *     launcher; tests pass their own)
   */
  public Supervisor(EngineRunner runner, LogRouter log, PrintWriter err, IntConsumer halt) {
    this(runner, log, err, halt, GRACE);
  }

  Supervisor(
      EngineRunner runner, LogRouter log, PrintWriter err, IntConsumer halt, Duration grace) {
    this.runner = runner;
    this.log = log;
    this.err = err;
    this.halt = halt;
    this.grace = grace;
  }

  /** Installs the SIGINT/SIGTERM/SIGHUP handlers, runs the engine, restores the handlers. */
  public int run(List<String> args, Map<String, String> env) {
    SignalTrap.Installed intTrap = SignalTrap.install(SignalTrap.Sig.INT, this::onSignal);
    SignalTrap.Installed termTrap = SignalTrap.install(SignalTrap.Sig.TERM, this::onSignal);
    SignalTrap.Installed hupTrap = SignalTrap.install(SignalTrap.Sig.HUP, this::onSignal);
    try {
      return runTrapped(args, env);
    } finally {
      hupTrap.close();
      termTrap.close();
      intTrap.close();
    }
  }

  /** The run without touching process-wide signal handlers (unit tests call {@link #onSignal}). */
  int runTrapped(List<String> args, Map<String, String> env) {
    try {
      int code = runner.run(args, env, log);
      synchronized (lock) {
        finished = true;
        return firstSignal != 0 ? exitCodeFor(firstSignal) : code;
      }
    } catch (RuntimeException e) {
      synchronized (lock) {
        finished = true;
        if (firstSignal != 0) {
          // Stopping was asked for: a child that died on the way out is still "interrupted".
          return exitCodeFor(firstSignal);
        }
      }
      throw e;
    } finally {
      log.flush();
    }
  }

  /** The signal handler (the JVM calls it on its own thread). */
  void onSignal(int signal) {
    boolean hardExit;
    boolean first;
    synchronized (lock) {
      if (finished) {
        return; // the engine already returned: main is on its way out with the right code
      }
      first = firstSignal == 0;
      hardExit = !first && signal == SignalTrap.Sig.INT.number();
      if (first) {
        firstSignal = signal;
      }
    }
    if (hardExit) {
      log.flush(); // a progress line ends first: this line starts on its own
      err.println("strata-launch: second interrupt: exiting now");
      log.flush();
      err.flush();
      runner.abandon();
      halt.accept(ExitCodes.INTERRUPTED);
      return;
    }
    if (!first) {
      return; // a SIGTERM after the first signal: already stopping
    }
    log.flush();
    err.println(
        signal == SignalTrap.Sig.TERM.number()
            ? "strata-launch: SIGTERM: stopping the engine"
            : signal == SignalTrap.Sig.HUP.number()
                ? "strata-launch: SIGHUP (the terminal went away): stopping the engine"
                : "strata-launch: interrupted: stopping the engine (Ctrl-C again exits at once)");
    err.flush();
    runner.cancel();
    Thread watchdog =
        Thread.ofPlatform()
            .daemon()
            .name("strata-cancel-watchdog")
            .unstarted(
                () -> {
                  // The cancel is repeated while waiting: an engine resets its cancel flag when
                  // strata_engine_main starts, so a signal that lands just before would be lost.
                  long deadline = System.nanoTime() + grace.toNanos();
                  while (System.nanoTime() < deadline) {
                    try {
                      Thread.sleep(Math.min(RECANCEL.toMillis(), Math.max(1, grace.toMillis())));
                    } catch (InterruptedException e) {
                      return;
                    }
                    synchronized (lock) {
                      if (finished) {
                        return;
                      }
                    }
                    runner.cancel();
                  }
                  synchronized (lock) {
                    if (finished) {
                      return;
                    }
                  }
                  log.flush();
                  err.println(
                      "strata-launch: the engine did not stop within "
                          + grace.toMillis() / 1000.0
                          + " s of the cancel: exiting without it");
                  log.flush();
                  err.flush();
                  runner.abandon();
                  halt.accept(exitCodeFor(signal));
                });
    watchdog.start();
  }

  /** 128 + the signal's number: 129 SIGHUP, 130 SIGINT, 143 SIGTERM. */
  static int exitCodeFor(int signal) {
    if (signal == SignalTrap.Sig.TERM.number()) {
      return ExitCodes.TERMINATED;
    }
    return signal == SignalTrap.Sig.HUP.number() ? ExitCodes.HANGUP : ExitCodes.INTERRUPTED;
  }
}
