package dev.strata.launcher.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The signal policy, with an engine stand-in that blocks until cancelled (the real engine is
 * exercised end to end in tests/). Signals are delivered by calling the handler directly.
 */
class SupervisorTest {
  /** Blocks in run() until cancel(); counts cancels; can be told to ignore them. */
  static final class BlockingEngine implements EngineRunner {
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch stop = new CountDownLatch(1);
    final AtomicInteger cancels = new AtomicInteger();
    volatile boolean abandoned;
    final boolean ignoresCancel;

    BlockingEngine(boolean ignoresCancel) {
      this.ignoresCancel = ignoresCancel;
    }

    @Override
    public int run(List<String> args, Map<String, String> env, EngineLog log) {
      log.line(EngineLog.INFO, "kv: format=int8");
      started.countDown();
      try {
        stop.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      log.line(EngineLog.WARN, "cancelled");
      return 130;
    }

    @Override
    public void cancel() {
      cancels.incrementAndGet();
      if (!ignoresCancel) {
        stop.countDown();
      }
    }

    @Override
    public void abandon() {
      abandoned = true;
    }
  }

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private final LogRouter log = new LogRouter(new PrintWriter(out), new PrintWriter(err));
  private final CompletableFuture<Integer> halted = new CompletableFuture<>();

  private Supervisor supervisor(EngineRunner engine, Duration grace) {
    return new Supervisor(engine, log, new PrintWriter(err, true), halted::complete, grace);
  }

  private CompletableFuture<Integer> start(Supervisor s, BlockingEngine engine) throws Exception {
    CompletableFuture<Integer> code =
        CompletableFuture.supplyAsync(() -> s.runTrapped(List.of(), Map.of()));
    assertTrue(engine.started.await(10, TimeUnit.SECONDS));
    return code;
  }

  @Test
  void anEngineThatReturnsGivesItsOwnCode() {
    EngineRunner engine =
        new EngineRunner() {
          @Override
          public int run(List<String> args, Map<String, String> env, EngineLog log) {
            log.line(EngineLog.ERROR, "bad model");
            return 42;
          }

          @Override
          public void cancel() {}
        };
    assertEquals(42, supervisor(engine, Duration.ofSeconds(3)).runTrapped(List.of(), Map.of()));
    assertEquals("error: bad model" + System.lineSeparator(), err.toString());
  }

  @Test
  void sigintCancelsAndExits130AfterTheEngineReturns() throws Exception {
    BlockingEngine engine = new BlockingEngine(false);
    Supervisor s = supervisor(engine, Duration.ofSeconds(30));
    CompletableFuture<Integer> code = start(s, engine);
    s.onSignal(2);
    assertEquals(130, code.get(10, TimeUnit.SECONDS));
    assertTrue(engine.cancels.get() >= 1);
    assertTrue(err.toString().contains("warn: cancelled"), "the engine's last line is flushed");
    assertTrue(out.toString().contains("kv: format=int8"));
    assertTrue(!halted.isDone());
  }

  @Test
  void sigtermExits143EvenThoughTheCancelledEngineSays130() throws Exception {
    BlockingEngine engine = new BlockingEngine(false);
    Supervisor s = supervisor(engine, Duration.ofSeconds(30));
    CompletableFuture<Integer> code = start(s, engine);
    s.onSignal(15);
    s.onSignal(15); // a repeated SIGTERM is not a second stop
    assertEquals(143, code.get(10, TimeUnit.SECONDS));
    assertEquals(1, err.toString().split("SIGTERM: stopping the engine", -1).length - 1);
    assertTrue(!halted.isDone());
  }

  @Test
  void aSecondSigintHaltsAtOnceWithoutWaitingForTheEngine() throws Exception {
    BlockingEngine engine = new BlockingEngine(true);
    Supervisor s = supervisor(engine, Duration.ofSeconds(30));
    CompletableFuture<Integer> code = start(s, engine);
    s.onSignal(2);
    assertTrue(!halted.isDone(), "the first SIGINT only cancels");
    s.onSignal(2);
    assertEquals(130, halted.get(10, TimeUnit.SECONDS));
    assertTrue(engine.abandoned);
    assertTrue(err.toString().contains("second interrupt"));
    engine.stop.countDown();
    code.get(10, TimeUnit.SECONDS);
  }

  @Test
  void anEngineThatIgnoresCancelIsAbandonedAfterTheGrace() throws Exception {
    BlockingEngine engine = new BlockingEngine(true);
    Supervisor s = supervisor(engine, Duration.ofMillis(50));
    CompletableFuture<Integer> code = start(s, engine);
    s.onSignal(15);
    assertEquals(143, halted.get(10, TimeUnit.SECONDS));
    assertTrue(engine.abandoned);
    assertTrue(err.toString().contains("did not stop within"));
    engine.stop.countDown();
    code.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aSignalAfterTheEngineReturnedChangesNothing() {
    BlockingEngine engine = new BlockingEngine(false);
    engine.stop.countDown();
    Supervisor s = supervisor(engine, Duration.ofSeconds(30));
    assertEquals(130, s.runTrapped(List.of(), Map.of()));
    s.onSignal(2);
    assertEquals(0, engine.cancels.get());
    assertTrue(!halted.isDone());
  }
}
