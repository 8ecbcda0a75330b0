package dev.strata.engine.plan;

import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.model.ModelWidths;
import java.util.List;

/**
 * strata-ref's own working buffers, which a cpu-reference plan holds beside the weights, the KV
 * pools and the experts (docs/PLAN.md). {@link #BUFFERS} is the one table of the forward pass's
 * buffers: the build writes it into rules.def ({@link RulesDef}), and strata-ref's forward.c
 * allocates, sizes ({@code strata_fwd_scratch_bytes}) and frees exactly its rows; the plan adds one
 * row of logits (startup.c) and the arena's books (memory.c, {@link #BOOK_BYTES_PER_SLOT}).
 */
final class RefScratch {
  private RefScratch() {}

  /** Tokens per batch of strata-ref's prompt processing ({@code STRATA_BATCH}, forward.h). */
  static final long BATCH = 32;

  /** Bytes per model slot of the arena's books: the slot of each expert, its expert and links. */
  static final long BOOK_BYTES_PER_SLOT = 16;

  /**
   * A width of one token's row in a forward buffer, from the model (strata_model's fields in
   * forward.c: {@code fwd_dim}).
   */
  enum Dim {
    /** 1. */
    ONE,
    /** E: the embedding (n_embd). */
    E,
    /** Q: heads × head_dim. */
    Q,
    /** KV: KV heads × head_dim. */
    KV,
    /** F: max(FFN, expert FFN). */
    F,
    /** X: the experts, at least 1 (a dense model's router buffer still has a row). */
    X,
    /** K: the experts used per token, at least 1. */
    K,
    /** W: the widest row a matrix product quantizes, max(E, Q, FFN, expert FFN). */
    W;

    long of(ModelGeometry model) {
      ModelWidths w = model.widths();
      long q = Math.multiplyExact(w.heads(), model.headDim());
      long f = Math.max(w.feedForward(), w.expertFeedForward());
      return switch (this) {
        case ONE -> 1;
        case E -> w.embedding();
        case Q -> q;
        case KV -> (long) model.kvHeads() * model.headDim();
        case F -> f;
        case X -> Math.max(model.experts(), 1);
        case K -> Math.max(model.expertsUsed(), 1);
        case W -> Math.max(Math.max(w.embedding(), q), f);
      };
    }
  }

  /**
   * One buffer of strata-ref's forward pass ({@code strata_fwd}'s field): {@link #BATCH} rows of
   * {@code count × dim × by} elements of {@code elementBytes}.
   */
  record Buffer(String field, int count, Dim dim, Dim by, int elementBytes) {
    long bytes(ModelGeometry model) {
      return Math.multiplyExact(
          Math.multiplyExact(BATCH * count * elementBytes, dim.of(model)), by.of(model));
    }
  }

  /**
   * The forward pass's buffers, in allocation order: the residual stream, its norm and the MoE's
   * sum (x, xb, xe), each token's K weighted expert outputs (eo, added in llama.cpp's slot order),
   * Q and its attention output, K and V, the FFN's gate and up rows, the router's logits and
   * probabilities (2 × X), the activations quantized to the weights' vec_dot type (xq: 4 bytes per
   * value is the widest form, f32; Q8_K's 292 per 256 is less), the router's picks and weights.
   */
  static final List<Buffer> BUFFERS =
      List.of(
          new Buffer("x", 1, Dim.E, Dim.ONE, Float.BYTES),
          new Buffer("xb", 1, Dim.E, Dim.ONE, Float.BYTES),
          new Buffer("eo", 1, Dim.E, Dim.K, Float.BYTES),
          new Buffer("xe", 1, Dim.E, Dim.ONE, Float.BYTES),
          new Buffer("q", 1, Dim.Q, Dim.ONE, Float.BYTES),
          new Buffer("att", 1, Dim.Q, Dim.ONE, Float.BYTES),
          new Buffer("k", 1, Dim.KV, Dim.ONE, Float.BYTES),
          new Buffer("v", 1, Dim.KV, Dim.ONE, Float.BYTES),
          new Buffer("hb", 1, Dim.F, Dim.ONE, Float.BYTES),
          new Buffer("hb2", 1, Dim.F, Dim.ONE, Float.BYTES),
          new Buffer("router", 2, Dim.X, Dim.ONE, Float.BYTES),
          new Buffer("xq", 4, Dim.W, Dim.ONE, 1),
          new Buffer("route_e", 1, Dim.K, Dim.ONE, Integer.BYTES),
          new Buffer("route_w", 1, Dim.K, Dim.ONE, Float.BYTES));

  /**
   * strata-ref's working buffers, in bytes; they do not depend on the context: every row of {@link
   * #BUFFERS}, one row of logits 4·V (V = vocabulary) and the arena's books, {@link
   * #BOOK_BYTES_PER_SLOT} per model slot.
   */
  static long bytes(ModelGeometry model) {
    long forward = 0;
    for (Buffer b : BUFFERS) {
      forward = Math.addExact(forward, b.bytes(model));
    }
    long logits = Math.multiplyExact(model.widths().vocab(), Float.BYTES);
    long books = Math.multiplyExact(model.expertSlots(), BOOK_BYTES_PER_SLOT);
    return forward + logits + books;
  }
}
