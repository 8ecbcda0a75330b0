package dev.strata.engine.ffm;

import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * The logits one {@link Session#eval} returned: {@link #rows()} rows of {@link Session#nVocab()}
 * floats in the session's reused off-heap buffer, valid until the session's next eval (then {@link
 * #row} and {@link Session#sample} refuse them).
 */
public final class Logits {
  private final Session session;
  private final long serial;
  private final int rows;

  /** The view of the eval that just ran on {@code session} (its serial the session's last). */
  Logits(Session session, int rows) {
    this.session = session;
    this.serial = session.evalSerial();
    this.rows = rows;
  }

  /** The positions whose logits the eval returned. */
  public int rows() {
    return rows;
  }

  /** Whether these are the last eval's logits of {@code s}. */
  boolean current(Session s) {
    return s == session && serial == session.evalSerial();
  }

  /** A copy of row {@code i} ({@link Session#nVocab()} floats). */
  public float[] row(int i) {
    Objects.checkIndex(i, rows);
    if (!current(session)) {
      throw new IllegalStateException("these logits were overwritten by a later eval");
    }
    long n = session.nVocab();
    return session
        .buffers()
        .logits()
        .asSlice(i * n * Float.BYTES, n * Float.BYTES)
        .toArray(ValueLayout.JAVA_FLOAT);
  }

  @Override
  public String toString() {
    return "Logits[rows=" + rows + ", n_vocab=" + session.nVocab() + "]";
  }
}
