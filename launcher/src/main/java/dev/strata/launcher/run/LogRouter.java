package dev.strata.launcher.run;

import dev.strata.engine.text.TerminalText;
import java.io.PrintWriter;

/**
 * Passes the engine's lines through as they come: info (level 0) to standard output as it is;
 * warnings and errors to standard error, prefixed {@code warn: } / {@code error: } so they stay
 * recognisable when both streams share a terminal. Every line is flushed at once (a user watching a
 * long run sees each line when the engine logs it), and one lock orders lines from several engine
 * threads: each appears whole, never interleaved with another.
 *
 * <p>On a terminal ({@code terminal} true) the info lines are {@link EngineLines}' for people: byte
 * figures as sizes, and the engine's {@code progress:} lines as one line updated in place (carriage
 * return, erase to the end), ended by the next line of either stream or by {@link #flush}. Without
 * a terminal every line passes as the engine wrote it, a {@code progress:} line included.
 */
public final class LogRouter implements EngineLog {
  private final PrintWriter out;
  private final PrintWriter err;
  private final Object lock = new Object();
  private final RunSummary tap;
  private final boolean terminal;
  // a progress line is on the terminal without its newline (guarded by lock)
  private boolean progressShown;

  public LogRouter(PrintWriter out, PrintWriter err) {
    this(out, err, null, false);
  }

  /**
   * Also hands every info line, as the engine wrote it, to {@code tap} ({@code strata-launch
   * --json} of a run).
   *
   * @param terminal whether a person reads the streams on a terminal (sizes, an updating progress
   *     line)
   */
  public LogRouter(PrintWriter out, PrintWriter err, RunSummary tap, boolean terminal) {
    this.out = out;
    this.err = err;
    this.tap = tap;
    this.terminal = terminal;
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
      if (level == INFO && terminal) {
        String progress = EngineLines.progress(line);
        if (progress != null) {
          out.print("\r" + progress + "\u001b[K");
          out.flush();
          progressShown = true;
          return;
        }
        line = EngineLines.withSizes(line);
      }
      endProgress();
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
      endProgress();
      err.println(TerminalText.escape(stripTerminator(text)));
      err.flush();
    }
  }

  /**
   * Ends a progress line and flushes both streams (the launcher calls it before it exits, on every
   * path, and before a line of its own).
   */
  public void flush() {
    synchronized (lock) {
      endProgress();
      out.flush();
      err.flush();
    }
  }

  /** The progress line keeps its last state on its own line: the next text starts below it. */
  private void endProgress() {
    if (progressShown) {
      out.println();
      out.flush();
      progressShown = false;
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
