package dev.strata.launcher.run;

import dev.strata.engine.text.TerminalText;
import java.io.PrintWriter;

/**
 * Passes the engine's lines through as they come: info (level 0) to standard output as it is;
 * warnings and errors to standard error, prefixed {@code warn: } / {@code error: } so they stay
 * recognisable when both streams share a terminal. Every line is flushed at once (a user watching a
 * long run sees each line when the engine logs it), and one lock orders lines from several engine
 * threads: each appears whole, never interleaved with another.
 */
public final class LogRouter implements EngineLog {
  private final PrintWriter out;
  private final PrintWriter err;
  private final Object lock = new Object();
  private final RunSummary tap;

  public LogRouter(PrintWriter out, PrintWriter err) {
    this(out, err, null);
  }

  /** Also hands every info line to {@code tap} ({@code strata-launch --json} of a run). */
  public LogRouter(PrintWriter out, PrintWriter err, RunSummary tap) {
    this.out = out;
    this.err = err;
    this.tap = tap;
  }

  @Override
  public void line(int level, String text) {
    String raw = text == null ? "" : stripTerminator(text);
    if (level == INFO && tap != null) {
      tap.line(raw); // the tap reads the engine's own text (kv:/decode: lines)
    }
    // the engine echoes paths and values from the config: control characters are made visible
    String line = TerminalText.escape(raw);
    synchronized (lock) {
      if (level == INFO) {
        out.println(line);
        out.flush();
      } else {
        err.println((level == WARN ? "warn: " : "error: ") + line);
        err.flush();
      }
    }
  }

  /**
   * A line that is not the engine's (the --isolate child JVM's own warnings): standard error, as it
   * is.
   */
  public void raw(String text) {
    synchronized (lock) {
      err.println(TerminalText.escape(stripTerminator(text)));
      err.flush();
    }
  }

  /** Flushes both streams (the launcher calls it before it exits, on every path). */
  public void flush() {
    synchronized (lock) {
      out.flush();
      err.flush();
    }
  }

  private static String stripTerminator(String s) {
    int end = s.length();
    while (end > 0 && (s.charAt(end - 1) == '\n' || s.charAt(end - 1) == '\r')) {
      end--;
    }
    return s.substring(0, end);
  }
}
