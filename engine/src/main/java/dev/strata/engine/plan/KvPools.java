package dev.strata.engine.plan;

import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ModelGeometry;

/**
 * The KV pools of a plan, sized by {@link KvFormat} (the single source of cell sizes).
 *
 * @param format the format the pools are allocated in (after KvRules: int8 for fp16 on Metal)
 * @param cells cells per pool: context + 128
 * @param cellBytes bytes of one cell (K and V of every KV head of one layer)
 * @param layers QSA layers, each holding one pool
 * @param bytes cells × cellBytes × layers
 */
public record KvPools(KvFormat format, long cells, long cellBytes, int layers, long bytes) {

  /**
   * Sizes the pools of a model at a context.
   *
   * @throws IllegalArgumentException when the format cannot hold the model's head_dim (q4_0 needs
   *     256)
   */
  public static KvPools of(KvFormat format, ModelGeometry model, long context) {
    long cellBytes = format.cellBytes(model.kvHeads(), model.headDim());
    int layers = model.qsaLayerCount();
    long bytes = format.poolBytes(context, model.kvHeads(), model.headDim(), layers);
    return new KvPools(format, KvFormat.cells(context), cellBytes, layers, bytes);
  }
}
