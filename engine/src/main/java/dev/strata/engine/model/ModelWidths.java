package dev.strata.engine.model;

import java.util.List;

/**
 * The widths of a model's activations, which size strata-ref's forward-pass scratch (the memory
 * plan's {@code scratch} item; engine/native/src/forward.c, {@code strata_fwd_scratch_bytes}). Read
 * leniently: a key that is absent or not one whole number reads as 0 (strata-ref refuses such a
 * model itself when it cannot compute it; the plan only needs the figures it would use).
 *
 * @param embedding {@code embedding_length} (E)
 * @param heads {@code attention.head_count}
 * @param feedForward {@code feed_forward_length} (the dense FFN)
 * @param expertFeedForward {@code expert_feed_forward_length} (one expert's FFN)
 * @param vocab rows of {@code token_embd.weight}: the logits row strata-ref keeps
 */
public record ModelWidths(
    long embedding, long heads, long feedForward, long expertFeedForward, long vocab) {

  /** No widths known (a geometry built by hand). */
  public static final ModelWidths NONE = new ModelWidths(0, 0, 0, 0, 0);

  /** The widths of a split set whose first shard holds the metadata. */
  static ModelWidths read(List<GgufFile> shards, String arch) {
    GgufFile f = shards.getFirst();
    long vocab = 0;
    for (GgufFile s : shards) {
      for (GgufTensor t : s.tensors()) {
        if (t.name().equals("token_embd.weight") && t.dims().size() >= 2) {
          vocab = t.dims().get(1);
        }
      }
    }
    return new ModelWidths(
        whole(f, arch + ".embedding_length"),
        whole(f, arch + ".attention.head_count"),
        whole(f, arch + ".feed_forward_length"),
        whole(f, arch + ".expert_feed_forward_length"),
        vocab);
  }

  /** A scalar whole number, else 0 (absent, an array, a float). */
  private static long whole(GgufFile f, String key) {
    return f.get(key) instanceof GgufValue.IntValue i
            && i.type() != GgufValueType.BOOL
            && i.fitsLong()
            && i.bits() >= 0
        ? i.bits()
        : 0;
  }
}
