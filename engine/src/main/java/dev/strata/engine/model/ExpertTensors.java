package dev.strata.engine.model;

import dev.strata.engine.text.Clip;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Expert tensors of the main blocks, per layer: separate or merged {@code *_exps} tensors (bytes /
 * expert count per slot), or the legacy per-expert tensors (the largest expert per slot).
 */
final class ExpertTensors {
  private final String arch;
  private final int experts;

  /** layer → [gate, up, down, gate_up] weight seen; then slot bytes. */
  private final TreeMap<Integer, long[]> merged = new TreeMap<>();

  /** layer → per expert: bytes, and a bit per gate/up/down seen. */
  private final TreeMap<Integer, long[][]> legacy = new TreeMap<>();

  ExpertTensors(String arch, int experts) {
    this.arch = arch;
    this.experts = experts;
  }

  boolean take(GgufFile shard, GgufTensor t, int layer, String rest) {
    int name = TensorNames.expertTensor(rest);
    if (name >= 0) {
      checkShape(shard, t);
      long[] l = merged.computeIfAbsent(layer, k -> new long[5]);
      if (rest.endsWith(".weight")) {
        l[name] = 1;
      }
      l[4] += t.bytes() / experts;
      return true;
    }
    int[] legacyMatch = TensorNames.legacyExpert(rest);
    if (legacyMatch != null && experts > 0) {
      int e = legacyMatch[1];
      if (e >= experts) {
        throw GgufException.tensorBeyond(shard.file(), t.name(), arch + ".expert_count", experts);
      }
      long[][] l = legacy.computeIfAbsent(layer, k -> new long[experts][2]);
      l[e][0] += t.bytes();
      l[e][1] |= 1L << legacyMatch[0];
      return true;
    }
    return false;
  }

  private void checkShape(GgufFile shard, GgufTensor t) {
    if (experts == 0) {
      throw GgufException.inconsistent(
          shard.file(),
          "holds expert tensor %s but has no %s.expert_count; the file is damaged"
              .formatted(Clip.clip(t.name()), arch));
    }
    if (t.dims().isEmpty() || t.dims().getLast() != experts) {
      throw GgufException.inconsistent(
          shard.file(),
          ("tensor %s has shape %s but its last dimension must be the expert count %s;"
                  + " the file is damaged")
              .formatted(Clip.clip(t.name()), t.dims(), experts));
    }
  }

  int layers() {
    TreeSet<Integer> all = new TreeSet<>(merged.keySet());
    all.addAll(legacy.keySet());
    return all.size();
  }

  /** The largest slot of any layer (an arena slot must hold it); checks every layer is whole. */
  long slotBytes(String file) {
    long max = 0;
    for (Map.Entry<Integer, long[]> e : merged.entrySet()) {
      long[] l = e.getValue();
      boolean gateUp = l[3] == 1 || (l[0] == 1 && l[1] == 1);
      String missing =
          l[2] == 0
              ? "ffn_down_exps.weight"
              : !gateUp ? (l[0] == 0 ? "ffn_gate_exps.weight" : "ffn_up_exps.weight") : null;
      if (missing != null) {
        throw incomplete(file, e.getKey(), "blk." + e.getKey() + "." + missing);
      }
      max = Math.max(max, l[4]);
    }
    for (Map.Entry<Integer, long[][]> e : legacy.entrySet()) {
      long[][] l = e.getValue();
      for (int x = 0; x < l.length; x++) {
        if (l[x][1] != 7) {
          int miss = Long.numberOfTrailingZeros(~l[x][1]);
          String tensor = ArchTable.LEGACY_EXPERT_TENSORS.get(miss);
          throw incomplete(
              file, e.getKey(), "blk.%s.%s.%s.weight".formatted(e.getKey(), tensor, x));
        }
        max = Math.max(max, l[x][0]);
      }
    }
    return max;
  }

  private static GgufException incomplete(String file, int layer, String tensor) {
    return GgufException.inconsistent(
        file,
        "block " + layer + " has expert tensors but no " + tensor + "; the model is incomplete");
  }
}
