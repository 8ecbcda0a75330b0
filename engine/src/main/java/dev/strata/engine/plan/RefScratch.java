package dev.strata.engine.plan;

import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.model.ModelWidths;

/**
 * strata-ref's own working buffers, which a cpu-reference plan holds beside the weights, the KV
 * pools and the experts (docs/PLAN.md). The same formula as the C engine's: {@code
 * strata_memory_scratch_bytes} (engine/native/src/memory.c) of {@code strata_fwd_scratch_bytes}
 * (forward.c) plus one row of logits.
 */
final class RefScratch {
  private RefScratch() {}

  /** Tokens per batch of strata-ref's prompt processing ({@code STRATA_BATCH}, forward.h). */
  static final long BATCH = 32;

  /** Bytes per model slot of the arena's books: the slot of each expert, its expert and links. */
  static final long BOOK_BYTES_PER_SLOT = 16;

  /**
   * strata-ref's working buffers, in bytes; they do not depend on the context. With B = {@link
   * #BATCH}, E = embedding, Q = heads × head_dim, KV = KV heads × head_dim, F = max(FFN, expert
   * FFN), X = experts, K = experts used, W = max(E, Q, FFN, expert FFN), V = vocabulary: the
   * batch's activations 4·B·((3 + max(K, 1))·E + 2Q + 2KV + 2F + 2X) (the MoE keeps each token's K
   * weighted expert outputs, to add them in llama.cpp's slot order), its quantized rows 4·B·W, the
   * router's picks 8·B·K, one row of logits 4·V, and the arena's books 16 B per model slot.
   */
  static long bytes(ModelGeometry model) {
    ModelWidths w = model.widths();
    long e = w.embedding();
    long q = Math.multiplyExact(w.heads(), model.headDim());
    long kv = (long) model.kvHeads() * model.headDim();
    long f = Math.max(w.feedForward(), w.expertFeedForward());
    long x = model.experts();
    long widest = Math.max(Math.max(e, q), f);
    long slots = Math.max(model.expertsUsed(), 1);
    long floats = BATCH * ((3 + slots) * e + 2 * q + 2 * kv + 2 * f + 2 * x);
    long activations = Math.multiplyExact(floats, Float.BYTES);
    long rows = BATCH * widest * Float.BYTES;
    long picks = BATCH * model.expertsUsed() * (Integer.BYTES + Float.BYTES);
    long logits = Math.multiplyExact(w.vocab(), Float.BYTES);
    long books = Math.multiplyExact(model.expertSlots(), BOOK_BYTES_PER_SLOT);
    return activations + rows + picks + logits + books;
  }
}
