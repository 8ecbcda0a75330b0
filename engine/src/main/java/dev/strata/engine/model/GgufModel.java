package dev.strata.engine.model;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A model as read from its GGUF shards: the geometry and the files it takes. The launcher checks
 * that every shard is still there and still this size before it starts the engine.
 *
 * @param geometry what the toolkit plans with
 * @param shards the files, in order (one for a single-file model)
 * @param tensorBytes bytes of every tensor of the model
 */
public record GgufModel(ModelGeometry geometry, List<Shard> shards, long tensorBytes) {

  /**
   * One file of the model.
   *
   * @param path where it is
   * @param bytes its size when read
   * @param tensors tensors it holds
   */
  public record Shard(Path path, long bytes, int tensors) {}

  public GgufModel {
    shards = List.copyOf(shards);
    if (shards.isEmpty()) {
      throw new IllegalArgumentException("a model has at least one file");
    }
  }

  /** What {@code --model} names: the first (or only) shard. */
  public Path firstShard() {
    return shards.getFirst().path();
  }

  /** Bytes of every shard file. */
  public long fileBytes() {
    long sum = 0;
    for (Shard s : shards) {
      sum += s.bytes();
    }
    return sum;
  }

  /** Bytes of every expert tensor of the model (resident mode holds them all). */
  public long expertTensorBytes() {
    return tensorBytes - geometry.denseBytes();
  }

  /**
   * The geometry in one line, e.g. "qwen3next: 48 blocks, 12 QSA layers [3, 7, 11, …, 47], 2 KV
   * heads × head_dim 256, 512 experts (10 per token) in 48 layers, expert slot 811,008 B, dense
   * 1.15 GiB, trained context 262,144".
   */
  public String summary() {
    ModelGeometry g = geometry;
    StringBuilder sb = new StringBuilder();
    sb.append(g.architecture()).append(": ").append(g.blocks()).append(" blocks, ");
    sb.append(g.qsaLayerCount()).append(" QSA layers ").append(layers(g.qsaLayers()));
    if (g.qsaLayerCount() > 0) {
      sb.append(", ").append(g.kvHeads()).append(" KV heads × head_dim ").append(g.headDim());
    }
    if (g.experts() > 0) {
      sb.append(
              String.format(
                  Locale.ROOT, ", %d experts (%d per token)", g.experts(), g.expertsUsed()))
          .append(" in ")
          .append(g.moeLayers())
          .append(" layers, expert slot ")
          .append(String.format(Locale.ROOT, "%,d B", g.expertBytes()));
    }
    sb.append(", dense ").append(dev.strata.engine.text.ByteSize.iec(g.denseBytes()));
    sb.append(String.format(Locale.ROOT, ", trained context %,d", g.trainedContext()));
    return sb.toString();
  }

  private static String layers(List<Integer> l) {
    if (l.size() <= 6) {
      return l.toString();
    }
    return "[" + l.get(0) + ", " + l.get(1) + ", " + l.get(2) + ", …, " + l.getLast() + "]";
  }
}
