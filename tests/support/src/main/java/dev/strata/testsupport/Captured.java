package dev.strata.testsupport;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * A command's standard output and error captured as text while it runs in this JVM: hand {@link
 * #out()} and {@link #err()} to the command's streams (the toolkit's {@code Io.of}), then read
 * {@link #outText()} and {@link #errText()}. The one capture every module's CLI tests use.
 */
public final class Captured {
  private final StringWriter outText = new StringWriter();
  private final StringWriter errText = new StringWriter();
  private final PrintWriter out = new PrintWriter(outText, true);
  private final PrintWriter err = new PrintWriter(errText, true);

  /** Standard output for the command (flushes on every line). */
  public PrintWriter out() {
    return out;
  }

  /** Standard error for the command (flushes on every line). */
  public PrintWriter err() {
    return err;
  }

  /** All that was written to {@link #out()} so far. */
  public String outText() {
    out.flush();
    return outText.toString();
  }

  /** All that was written to {@link #err()} so far. */
  public String errText() {
    err.flush();
    return errText.toString();
  }
}
