package dev.strata.engine.plan;

import dev.strata.engine.host.HostFacts;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.model.ModelWidths;
import java.util.ArrayList;
import java.util.List;

/** Hand-made hosts and a model resembling the seed's (docs/ENGINE-CONTRACT.md). */
final class Fixtures {
  static final long GIB = 1L << 30;

  /** TQ2_0: 3 tensors × 2048 × 512 values at 66 bytes per 256 values. */
  static final long SEED_SLOT = 3L * 2048 * 512 / 256 * 66;

  /** Upstream's measured model: 2 bits per weight exactly. */
  static final long UPSTREAM_SLOT = 786_432;

  /** Dense weights of the hand-made seed model: 2.5 GiB. */
  static final long SEED_DENSE = 2_684_354_560L;

  private Fixtures() {}

  /** QSA = every 4th layer of 48: 3, 7, …, 47. */
  static List<Integer> seedQsa() {
    List<Integer> qsa = new ArrayList<>();
    for (int i = 3; i < 48; i += 4) {
      qsa.add(i);
    }
    return qsa;
  }

  static ModelGeometry seed() {
    return seed(SEED_SLOT);
  }

  static ModelGeometry seed(long slotBytes) {
    return model("qwen3next", 48, 512, 256, 256, slotBytes, SEED_DENSE, 262_144, 4, 0, 0, 0);
  }

  static ModelGeometry withHeadDim(int headDim) {
    return model(
        "qwen3next", 48, 512, headDim, headDim, SEED_SLOT, SEED_DENSE, 262_144, 1, 0, 0, 0);
  }

  /** The seed with K heads of {@code k} values and V heads of {@code v}. */
  static ModelGeometry withHeadDims(int k, int v) {
    return model("qwen3next", 48, 512, k, v, SEED_SLOT, SEED_DENSE, 262_144, 1, 0, 0, 0);
  }

  static ModelGeometry withTrainedContext(long trained) {
    return model("qwen3next", 48, 512, 256, 256, SEED_SLOT, SEED_DENSE, trained, 1, 0, 0, 0);
  }

  /** The seed's shape with 12 GiB of dense weights: too big for a 16 GiB Mac at any context. */
  static ModelGeometry huge() {
    return model("qwen3next", 48, 512, 256, 256, SEED_SLOT, 12 * GIB, 262_144, 1, 0, 0, 0);
  }

  /** A dense model (no experts) with the seed's attention: 32 blocks, the 12 QSA layers below. */
  static ModelGeometry dense(long denseBytes, long trained) {
    return model("llama", 32, 0, 256, 256, 0, denseBytes, trained, 1, 0, 0, 0);
  }

  /** The seed with recurrent state: this many layers of this many bytes each. */
  static ModelGeometry hybrid(int recurrentLayers, long stateBytesPerLayer) {
    return model(
        "qwen3next",
        48,
        512,
        256,
        256,
        SEED_SLOT,
        SEED_DENSE,
        262_144,
        1,
        recurrentLayers,
        stateBytesPerLayer,
        0);
  }

  /** The seed with one MTP block (block 48) that holds an attention layer, of these bytes. */
  static ModelGeometry withDrafter(long drafterBytes) {
    return model(
        "qwen3next", 48, 512, 256, 256, SEED_SLOT, SEED_DENSE, 262_144, 1, 0, 0, drafterBytes);
  }

  /**
   * A model of the seed's attention (2 KV heads, the QSA layers of {@link #seedQsa}, full
   * attention), 10 experts used per token in every block when it has experts; a drafter, when
   * {@code drafterBytes} is above 0, is one MTP block after the last.
   */
  private static ModelGeometry model(
      String arch,
      int blocks,
      int experts,
      int headDim,
      int headDimV,
      long slotBytes,
      long denseBytes,
      long trained,
      int shards,
      int recurrentLayers,
      long stateBytesPerLayer,
      long drafterBytes) {
    boolean moe = experts > 0;
    boolean drafter = drafterBytes > 0;
    return new ModelGeometry(
        arch,
        blocks,
        seedQsa(),
        2,
        headDim,
        experts,
        moe ? 10 : 0,
        moe ? blocks : 0,
        slotBytes,
        denseBytes,
        trained,
        shards,
        headDimV,
        List.of(),
        0,
        recurrentLayers,
        stateBytesPerLayer,
        drafter ? 1 : 0,
        drafter ? List.of(blocks) : List.of(),
        drafterBytes,
        moe ? SEED_WIDTHS : DENSE_WIDTHS);
  }

  /**
   * The demo model's widths ({@code DemoModel}: embedding 2048, 16 heads, expert FFN 512,
   * vocabulary 151,936): strata-ref's scratch of the seed is 4,018,176 B (RefScratchTest).
   */
  static final ModelWidths SEED_WIDTHS = new ModelWidths(2048, 16, 0, 512, 151_936);

  /** A dense model of the seed's width: the FFN of 8192 in place of the experts. */
  static final ModelWidths DENSE_WIDTHS = new ModelWidths(2048, 16, 8192, 0, 151_936);

  /** An M4 Pro-like Mac (Apple9, Metal 4 family, not k4) with this much memory. */
  static HostFacts mac(long gib) {
    return mac(gib, 0, false);
  }

  static HostFacts mac(long gib, long wiredLimitMb, boolean k4) {
    return macBytes(gib * GIB, wiredLimitMb, k4);
  }

  /** The Mac above with a memory of any byte count. */
  static HostFacts macBytes(long memoryBytes, long wiredLimitMb, boolean k4) {
    return new HostFacts(
        "macos",
        k4 ? "Apple M5 Pro" : "Apple M4 Pro",
        14,
        10,
        4,
        memoryBytes,
        k4 ? HostFacts.FAMILY_APPLE10 : 1009,
        true,
        k4,
        "27.0.1",
        wiredLimitMb);
  }

  static HostFacts linux(long gib) {
    return linuxBytes(gib * GIB);
  }

  /** A Linux machine with a memory of any byte count. */
  static HostFacts linuxBytes(long memoryBytes) {
    return new HostFacts(
        "linux", "x86_64", 8, 0, 0, memoryBytes, 0, false, false, "Debian GNU/Linux 12", 0);
  }
}
