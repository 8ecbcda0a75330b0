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

  /** A blocking engine, its supervisor and the exit code to come, once the engine runs. */
  private record Started(
      BlockingEngine engine, Supervisor supervisor, CompletableFuture<Integer> code) {}

  private Started started(boolean ignoresCancel, Duration grace) throws Exception {
    BlockingEngine engine = new BlockingEngine(ignoresCancel);
    Supervisor s = supervisor(engine, grace);
    return new Started(engine, s, start(s, engine));
  }

  /** Halted with {@code code}, the engine abandoned and {@code why} said; then the engine ends. */
  private void assertHalted(Started t, int code, String why) throws Exception {
    assertEquals(code, halted.get(10, TimeUnit.SECONDS));
    assertTrue(t.engine().abandoned);
    assertTrue(err.toString().contains(why), err.toString());
    t.engine().stop.countDown();
    t.code().get(10, TimeUnit.SECONDS);
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
    Started t = started(false, Duration.ofSeconds(30));
    t.supervisor().onSignal(2);
    assertEquals(130, t.code().get(10, TimeUnit.SECONDS));
    assertTrue(t.engine().cancels.get() >= 1);
    assertTrue(err.toString().contains("warn: cancelled"), "the engine's last line is flushed");
    assertTrue(out.toString().contains("kv: format=int8"));
    assertTrue(!halted.isDone());
  }

  @Test
  void sigtermExits143EvenThoughTheCancelledEngineSays130() throws Exception {
    Started t = started(false, Duration.ofSeconds(30));
    t.supervisor().onSignal(15);
    t.supervisor().onSignal(15); // a repeated SIGTERM is not a second stop
    assertEquals(143, t.code().get(10, TimeUnit.SECONDS));
    assertEquals(1, err.toString().split("SIGTERM: stopping the engine", -1).length - 1);
    assertTrue(!halted.isDone());
  }

  @Test
  void aSecondSigintHaltsAtOnceWithoutWaitingForTheEngine() throws Exception {
    Started t = started(true, Duration.ofSeconds(30));
    t.supervisor().onSignal(2);
    assertTrue(!halted.isDone(), "the first SIGINT only cancels");
    t.supervisor().onSignal(2);
    assertHalted(t, 130, "second interrupt");
  }

  @Test
  void anEngineThatIgnoresCancelIsAbandonedAfterTheGrace() throws Exception {
    Started t = started(true, Duration.ofMillis(50));
    t.supervisor().onSignal(15);
    assertHalted(t, 143, "did not stop within");
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
