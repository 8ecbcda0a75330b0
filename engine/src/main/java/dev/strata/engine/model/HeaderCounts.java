package dev.strata.engine.model;

import dev.strata.engine.model.GgufException.Kind;
import java.util.TreeSet;

/**
 * Counts read from a GGUF header with the limits that tell a real model from a damaged file
 * (docs/MODELS.md): what {@link GeometryRules} derives a geometry from.
 */
final class HeaderCounts {
  private HeaderCounts() {}

  /** Most blocks, experts, heads or head size taken for real; beyond is a damaged file. */
  static final long MAX_SMALL = 1 << 16;

  /** Longest sliding window or state dimension taken for real. */
  static final long MAX_WINDOW = 1L << 32;

  /** A required count in 1..min(limit); {@code min} is the smallest valid value. */
  static long required(GgufFile f, String key, long min) {
    long v = f.unsigned(key);
    if (v < 0) {
      throw new GgufException(
          Kind.NOT_A_MODEL, f.file(), "has no " + key + "; not a model this toolkit can plan for");
    }
    if (v < min || v > MAX_SMALL) {
      throw new GgufException(
          v < min ? Kind.INCONSISTENT : Kind.ABSURD_COUNT,
          f.file(),
          key + " is " + v + " (expected " + min + ".." + MAX_SMALL + "); the file is damaged");
    }
    return v;
  }

  /** An optional count up to {@link #MAX_SMALL}, or {@code absent}. */
  static long small(GgufFile f, String key, long absent) {
    return bounded(f, key, absent, MAX_SMALL);
  }

  static long bounded(GgufFile f, String key, long absent, long limit) {
    long v = f.unsigned(key);
    if (v < 0) {
      return absent;
    }
    if (v > limit) {
      throw new GgufException(
          Kind.ABSURD_COUNT,
          f.file(),
          key + " is " + v + " (limit " + limit + "); the file is damaged");
    }
    return v;
  }

  /**
   * A per-layer count that is a scalar or an array of one value per block (hybrid models give 0 to
   * their non-attention layers); the attention layers must agree. -1 when absent.
   */
  static long perLayer(GgufFile f, String key, int blocks, TreeSet<Integer> layers) {
    GgufValue v = f.get(key);
    if (!(v instanceof GgufValue.ArrayValue a)) {
      return small(f, key, -1);
    }
    if (!a.complete() || a.length() != blocks || !a.elementType().isInteger()) {
      throw new GgufException(
          Kind.INCONSISTENT,
          f.file(),
          key
              + " is "
              + GgufFile.describe(v)
              + ", expected one integer per block ("
              + blocks
              + ")");
    }
    long value = -1;
    for (int layer : layers) {
      if (layer >= a.length()) {
        continue; // an MTP block counted after block_count: the array does not reach it
      }
      long x = ((GgufValue.IntValue) a.elements().get(layer)).bits();
      if (x < 1 || x > MAX_SMALL || (value >= 0 && x != value)) {
        throw new GgufException(
            Kind.INCONSISTENT,
            f.file(),
            key
                + " gives attention layer "
                + layer
                + " the value "
                + x
                + (value >= 0 ? " but another attention layer " + value : "")
                + "; this toolkit plans one KV shape for every attention layer");
      }
      value = x;
    }
    return value;
  }
}
