package dev.strata.launcher.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogRouterTest {
  @Test
  void infoGoesToStdoutAsItIsWarningsAndErrorsToStderrPrefixed() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    LogRouter r = new LogRouter(new PrintWriter(out), new PrintWriter(err));
    r.line(0, "kv: format=q4_0 cell_bytes=576 layers=12 cells=32896 bytes=227377152\n");
    r.line(1, "fp16 runs on int8 pools");
    r.line(2, "out of memory");
    r.line(7, "odd level");
    r.raw("WARNING: a JVM line");
    String nl = System.lineSeparator();
    assertEquals(
        "kv: format=q4_0 cell_bytes=576 layers=12 cells=32896 bytes=227377152" + nl,
        out.toString());
    assertEquals(
        "warn: fp16 runs on int8 pools"
            + nl
            + "error: out of memory"
            + nl
            + "error: odd level"
            + nl
            + "WARNING: a JVM line"
            + nl,
        err.toString());
  }

  @Test
  void linesFromManyThreadsArriveWhole() throws InterruptedException {
    StringWriter out = new StringWriter();
    LogRouter r = new LogRouter(new PrintWriter(out), new PrintWriter(new StringWriter()));
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      int id = t;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i = 0; i < 500; i++) {
                      r.line(0, "thread " + id + " line " + i + " " + "x".repeat(100));
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    String[] lines = out.toString().split(System.lineSeparator());
    assertEquals(8 * 500, lines.length);
    for (String l : lines) {
      assertEquals(true, l.matches("thread \\d line \\d+ x{100}"), l);
    }
  }
}
