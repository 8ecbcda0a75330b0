package dev.strata.setup.prompt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ExitCodes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jline.terminal.impl.ExternalTerminal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link JLinePrompter#onSignal} on an in-memory terminal whose input never comes (a user who does
 * not type): the question in progress ends as a cancel with 128 + the signal, the prompter closes
 * once whoever gets there first, and a main thread that does not unwind, or a second signal, has
 * the prompter restore and halt; a signal after the wizard closed the terminal exits as the JVM
 * would. The exit and the halt are recorded, never done (this is the Surefire JVM), and a test that
 * sends two signals waits until the first was taken, whatever the load. The same on a real pty, in
 * a child JVM: WizardSignalsPtyTest.
 */
@Timeout(60)
class JLinePrompterSignalTest {
  private final List<Integer> halted = new CopyOnWriteArrayList<>();
  private final List<Integer> exited = new CopyOnWriteArrayList<>();

  private JLinePrompter open(PipedInputStream in) throws IOException {
    ExternalTerminal t =
        new ExternalTerminal(
            "test", "xterm", in, new ByteArrayOutputStream(), StandardCharsets.UTF_8);
    return new JLinePrompter(t, Map.of("NO_COLOR", "1"), exited::add, halted::add);
  }

  /**
   * A SIGHUP to {@code p} on a thread of its own (it waits there for the main thread to unwind),
   * returned once {@code p} has taken it: that thread may start late under load.
   */
  private static CompletableFuture<Void> hangUp(JLinePrompter p) throws InterruptedException {
    CompletableFuture<Void> signalled = CompletableFuture.runAsync(() -> p.onSignal(1));
    awaitSignal(p);
    return signalled;
  }

  /** Waits until {@code p} has taken a signal (the signal's thread may start late under load). */
  private static void awaitSignal(JLinePrompter p) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (p.signalled() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertTrue(p.signalled() != 0, "the signal was taken");
  }

  private static final Question.YesNo Q = new Question.YesNo("--yes", "Go?", List.of(), true);

  private static Throwable cancelled(JLinePrompter p, int signal) throws Exception {
    CompletableFuture<Throwable> asked =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                p.ask(Q);
                return null;
              } catch (RuntimeException e) {
                return e;
              } finally {
                p.close(); // the wizard's finally
              }
            });
    Thread.sleep(300); // the question is being read
    p.onSignal(signal);
    return asked.get(30, TimeUnit.SECONDS);
  }

  @Test
  void hupAndTermEndTheQuestionWith128PlusTheSignal() throws Exception {
    for (int sig : new int[] {1, 15, 2}) {
      try (PipedOutputStream keep = new PipedOutputStream()) {
        JLinePrompter p = open(new PipedInputStream(keep));
        Throwable e = cancelled(p, sig);
        WizardCancelled c = assertInstanceOf(WizardCancelled.class, e);
        assertEquals(128 + sig, c.exitCode(), c.getMessage());
        String how = sig == 1 ? "SIGHUP" : sig == 15 ? "SIGTERM" : "Ctrl-C";
        assertEquals("cancelled (" + how + "): nothing written", c.getMessage());
        assertEquals(List.of(), halted, "the main thread unwound: no halt");
        assertEquals(List.of(), exited);
      }
    }
    assertEquals(ExitCodes.HANGUP, 129);
  }

  @Test
  void aSignalBeforeTheNextQuestionCancelsItAndCloseIsIdempotent() throws Exception {
    try (PipedOutputStream keep = new PipedOutputStream()) {
      JLinePrompter p = open(new PipedInputStream(keep));
      CompletableFuture<Void> signalled = hangUp(p);
      WizardCancelled c = assertInstanceOf(WizardCancelled.class, ask(p));
      assertEquals(129, c.exitCode());
      // several closers at once: the first restores, the others return
      List<CompletableFuture<Void>> closers =
          List.of(
              CompletableFuture.runAsync(p::close),
              CompletableFuture.runAsync(p::close),
              CompletableFuture.runAsync(p::close));
      p.close();
      for (CompletableFuture<Void> f : closers) {
        f.get(10, TimeUnit.SECONDS);
      }
      signalled.get(10, TimeUnit.SECONDS);
      assertEquals(List.of(), halted);
      assertInstanceOf(WizardCancelled.class, ask(p), "a closed prompter asks nothing");
      // a signal once the wizard has closed the terminal: what the JVM would do (exit, hooks run)
      p.onSignal(15);
      assertEquals(List.of(143), exited);
      assertEquals(List.of(), halted);
    }
  }

  @Test
  void aMainThreadThatDoesNotUnwindIsHaltedAfterTheGrace() throws Exception {
    try (PipedOutputStream keep = new PipedOutputStream()) {
      JLinePrompter p = open(new PipedInputStream(keep));
      long start = System.nanoTime();
      p.onSignal(15); // nobody is reading, nobody closes
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertEquals(List.of(143), halted);
      assertTrue(ms >= JLinePrompter.GRACE_MS - 100, ms + " ms");
      assertInstanceOf(WizardCancelled.class, ask(p), "closed by the signal");
    }
  }

  @Test
  void aSecondSignalHaltsAtOnce() throws Exception {
    try (PipedOutputStream keep = new PipedOutputStream()) {
      JLinePrompter p = open(new PipedInputStream(keep));
      CompletableFuture<Void> first = hangUp(p);
      p.onSignal(2);
      assertEquals(List.of(130), halted);
      first.get(10, TimeUnit.SECONDS); // closed by the second: the first stops waiting
      assertEquals(List.of(130), halted);
      assertEquals(List.of(), exited);
    }
  }

  private static Throwable ask(JLinePrompter p) {
    try {
      p.ask(Q);
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }
}
