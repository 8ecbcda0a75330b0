package dev.strata.engine.plan;

import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ModelGeometry;

/**
 * The KV pools of a plan, sized by {@link KvFormat} (the single source of cell sizes). Every pool
 * of a model has the same cell; full-attention layers (and the MTP drafter's, when speculation is
 * on) hold context + 128 cells, sliding-window layers min(context, window) + 128 (docs/MODELS.md).
 *
 * @param format the format the pools are allocated in (after KvRules: int8 for fp16 on Metal)
 * @param cells cells of a full-attention pool: context + 128
 * @param cellBytes bytes of one cell (K and V of every KV head of one layer)
 * @param layers full-attention QSA layers, each holding one pool of {@code cells}
 * @param bytes every pool's bytes: sequences × cellBytes × (cells × (layers + drafterLayers) +
 *     swaCells × swaLayers)
 * @param swaLayers sliding-window layers, each holding one pool of {@code swaCells}
 * @param swaCells cells of a sliding-window pool: min(context, window) + 128; 0 without such layers
 * @param drafterLayers the MTP drafter's attention layers planned (0 with {@code --spec 0})
 * @param sequences the sequences held at once ({@code --parallel}, at least 1): each has every
 *     pool, so {@code bytes} is this many times one sequence's (docs/LAUNCH.md, "Sequences")
 */
public record KvPools(
    KvFormat format,
    long cells,
    long cellBytes,
    int layers,
    long bytes,
    int swaLayers,
    long swaCells,
    int drafterLayers,
    int sequences) {

  public KvPools {
    requireSequences("sequences", sequences);
  }

  /**
   * Checks a count of sequences held at once ({@code --parallel}): every pool is held once per
   * sequence, so there is at least one.
   *
   * @param what the name the message gives the count
   * @throws IllegalArgumentException when {@code sequences} is below 1
   */
  static void requireSequences(String what, int sequences) {
    if (sequences < 1) {
      throw new IllegalArgumentException(what + " must be at least 1, got " + sequences);
    }
  }

  /** Pools of full-attention layers only. */
  public KvPools(KvFormat format, long cells, long cellBytes, int layers, long bytes) {
    this(format, cells, cellBytes, layers, bytes, 0, 0, 0, 1);
  }

  /** Sizes the pools of a model at a context, without the drafter. */
  public static KvPools of(KvFormat format, ModelGeometry model, long context) {
    return of(format, model, context, 0);
  }

  /**
   * Sizes the pools of a model at a context.
   *
   * @param spec the engine's {@code --spec}: the drafter's pools are planned when it is above 0
   * @throws IllegalArgumentException when the format cannot hold the model's head sizes
   */
  public static KvPools of(KvFormat format, ModelGeometry model, long context, long spec) {
    return of(format, model, context, spec, 1);
  }

  /**
   * Sizes the pools of {@code sequences} sequences of a model at a context: each sequence has every
   * pool ({@code --parallel}; strata-ref's kv.c allocates them so, engine/native/src/memory.c plans
   * them so).
   *
   * @throws IllegalArgumentException when the format cannot hold the model's head sizes, or
   *     sequences is below 1
   */
  public static KvPools of(
      KvFormat format, ModelGeometry model, long context, long spec, int sequences) {
    requireSequences("sequences", sequences);
    long cellBytes = format.cellBytes(model.kvHeads(), model.headDim(), model.headDimV());
    long cells = KvFormat.cells(context);
    int full = model.fullLayerCount();
    int swa = model.swaLayers().size();
    long swaCells = swa > 0 ? KvFormat.cells(Math.min(context, model.slidingWindow())) : 0;
    int drafter = spec > 0 ? model.drafterKvLayers().size() : 0;
    long bytes =
        Math.multiplyExact(
            (long) sequences,
            Math.multiplyExact(
                cellBytes,
                Math.addExact(
                    Math.multiplyExact(cells, (long) full + drafter),
                    Math.multiplyExact(swaCells, (long) swa))));
    return new KvPools(format, cells, cellBytes, full, bytes, swa, swaCells, drafter, sequences);
  }

  /**
   * Bytes one more token of context adds: a cell in every full-attention and drafter pool of every
   * sequence.
   */
  public long bytesPerToken() {
    return Math.multiplyExact(
        (long) sequences, Math.multiplyExact(cellBytes, (long) layers + drafterLayers));
  }

  /** One sequence's pools' bytes. */
  public long bytesPerSequence() {
    return bytes / sequences;
  }
}
