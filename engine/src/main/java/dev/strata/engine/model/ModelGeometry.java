package dev.strata.engine.model;

import java.util.List;
import java.util.Objects;

/**
 * What the toolkit needs to know of a model, read from its GGUF metadata and tensor infos (never
 * the tensor data).
 *
 * @param architecture general.architecture, e.g. "qwen3next"
 * @param blocks transformer blocks
 * @param qsaLayers indices of the full-attention (QSA) layers, ascending — only they hold a KV pool
 * @param kvHeads KV heads of a QSA layer
 * @param headDim values per head vector
 * @param experts experts per MoE layer (0 for a dense model)
 * @param expertsUsed experts used per token
 * @param moeLayers blocks that hold experts
 * @param expertBytes bytes of one expert of one MoE layer: what one arena slot holds
 * @param denseBytes bytes of every non-expert tensor
 * @param trainedContext the context length the model was trained for
 * @param shardCount shards of the split set (1 for a single file)
 * @param headDimV values per V head vector ({@code value_length}; headDim is K's)
 * @param swaLayers the QSA layers that attend over a sliding window, ascending (a subset of
 *     qsaLayers); their pools hold min(context, window) + 128 cells
 * @param slidingWindow the window in tokens ({@code attention.sliding_window}); 0 when no layer
 *     slides
 * @param recurrentLayers blocks with recurrent state (Gated DeltaNet, Mamba, short conv)
 * @param stateBytesPerLayer per-sequence state of one recurrent layer, bytes (f32)
 * @param drafterBlocks MTP blocks ({@code nextn_predict_layers}): the last blocks of block_count,
 *     not part of {@code blocks}
 * @param drafterKvLayers the drafter blocks that hold an attention layer (a KV pool when
 *     speculation is on)
 * @param drafterBytes bytes of every drafter tensor (weights loaded when speculation is on); not in
 *     denseBytes nor in the experts
 * @param widths the activation widths (embedding, heads, FFN, vocabulary) that size strata-ref's
 *     forward-pass scratch
 */
public record ModelGeometry(
    String architecture,
    int blocks,
    List<Integer> qsaLayers,
    int kvHeads,
    int headDim,
    int experts,
    int expertsUsed,
    int moeLayers,
    long expertBytes,
    long denseBytes,
    long trainedContext,
    int shardCount,
    int headDimV,
    List<Integer> swaLayers,
    long slidingWindow,
    int recurrentLayers,
    long stateBytesPerLayer,
    int drafterBlocks,
    List<Integer> drafterKvLayers,
    long drafterBytes,
    ModelWidths widths) {

  public ModelGeometry {
    Objects.requireNonNull(widths, "widths");
    qsaLayers = List.copyOf(qsaLayers);
    swaLayers = List.copyOf(swaLayers);
    drafterKvLayers = List.copyOf(drafterKvLayers);
  }

  /** QSA layers attending over the whole context. */
  public int fullLayerCount() {
    return qsaLayers.size() - swaLayers.size();
  }

  /** Per-sequence recurrent state of the whole model: recurrent layers × state per layer. */
  public long stateBytes() {
    return Math.multiplyExact(stateBytesPerLayer, recurrentLayers);
  }

  /** Whether the file holds MTP drafter blocks that speculation ({@code --spec}) can run on. */
  public boolean hasDrafter() {
    return drafterBlocks > 0;
  }

  public int qsaLayerCount() {
    return qsaLayers.size();
  }

  /** Expert slots of the whole model: experts × MoE layers. */
  public long expertSlots() {
    return (long) experts * moeLayers;
  }

  /** Bytes of every expert of every layer: what resident mode must hold. */
  public long allExpertBytes() {
    return Math.multiplyExact(expertBytes, expertSlots());
  }
}
