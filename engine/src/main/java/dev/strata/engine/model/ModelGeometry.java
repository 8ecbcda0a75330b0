package dev.strata.engine.model;

import java.util.List;

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
    int shardCount) {

  public ModelGeometry {
    qsaLayers = List.copyOf(qsaLayers);
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
