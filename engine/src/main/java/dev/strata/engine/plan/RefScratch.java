package dev.strata.engine.plan;

import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ModelGeometry;

/**
 * strata-ref's own working buffers, which a cpu-reference plan holds beside the model, the KV pools
 * and the experts (docs/PLAN.md; engine/native/src/memory.c, {@code strata_memory_scratch_bytes},
 * the same formula).
 */
final class RefScratch {
  private RefScratch() {}

  /** strata-ref splits decode attention into items of this many cells (engine/native/src). */
  static final long SPLIT_CELLS = 2048;

  /**
   * strata-ref's working buffers at a context, in bytes: the decode queries (attention layers × KV
   * heads × head_dim floats), the flash-decoding partials (attention layers × ⌈cells / 2048⌉ × KV
   * heads × (head_dim + 2) floats), one head's output (head_dim floats), and the arena's and
   * router's tables: 18 B per model slot (slot index, LRU key and links as int32, popularity order
   * as uint16) plus one double per expert.
   *
   * @param drafterLayers the MTP drafter's attention layers when it is planned (--spec > 0): they
   *     decode too; else 0
   */
  static long bytes(ModelGeometry model, long context, int drafterLayers) {
    long cells = KvFormat.cells(context);
    long splits = (cells + SPLIT_CELLS - 1) / SPLIT_CELLS;
    long q = model.qsaLayerCount() + drafterLayers;
    long queries = q * model.kvHeads() * model.headDim() * Float.BYTES;
    long partials =
        Math.multiplyExact(
            q * splits, (long) model.kvHeads() * (model.headDim() + 2) * Float.BYTES);
    long out = (long) model.headDim() * Float.BYTES;
    long books = model.expertSlots() * 18 + (long) model.experts() * Double.BYTES;
    return queries + partials + out + books;
  }
}
