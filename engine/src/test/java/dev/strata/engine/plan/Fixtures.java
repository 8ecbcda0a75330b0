package dev.strata.engine.plan;

import dev.strata.engine.host.HostFacts;
import dev.strata.engine.model.ModelGeometry;
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
    return seedShape(256, slotBytes, SEED_DENSE, 262_144, 4);
  }

  static ModelGeometry withHeadDim(int headDim) {
    return seedShape(headDim, SEED_SLOT, SEED_DENSE, 262_144, 1);
  }

  static ModelGeometry withTrainedContext(long trained) {
    return seedShape(256, SEED_SLOT, SEED_DENSE, trained, 1);
  }

  /** The seed's shape with 12 GiB of dense weights: too big for a 16 GiB Mac at any context. */
  static ModelGeometry huge() {
    return seedShape(256, SEED_SLOT, 12 * GIB, 262_144, 1);
  }

  /**
   * The seed's shape (48 blocks, 2 KV heads, 512 experts of which 10 used, in 48 MoE layers): every
   * QSA layer full attention, K and V of one head size, no recurrent state, no MTP drafter.
   */
  private static ModelGeometry seedShape(
      int headDim, long slotBytes, long denseBytes, long trained, int shards) {
    return new ModelGeometry(
        "qwen3next",
        48,
        seedQsa(),
        2,
        headDim,
        512,
        10,
        48,
        slotBytes,
        denseBytes,
        trained,
        shards,
        headDim,
        List.of(),
        0,
        0,
        0,
        0,
        List.of(),
        0);
  }

  /** An M4 Pro-like Mac (Apple9, Metal 4 family, not k4) with this much memory. */
  static HostFacts mac(long gib) {
    return mac(gib, 0, false);
  }

  static HostFacts mac(long gib, long wiredLimitMb, boolean k4) {
    return new HostFacts(
        "macos",
        k4 ? "Apple M5 Pro" : "Apple M4 Pro",
        14,
        10,
        4,
        gib * GIB,
        k4 ? HostFacts.FAMILY_APPLE10 : 1009,
        true,
        k4,
        "27.0.1",
        wiredLimitMb);
  }

  static HostFacts linux(long gib) {
    return new HostFacts(
        "linux", "x86_64", 8, 0, 0, gib * GIB, 0, false, false, "Debian GNU/Linux 12", 0);
  }
}
