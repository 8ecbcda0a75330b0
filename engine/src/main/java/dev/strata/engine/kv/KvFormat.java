package dev.strata.engine.kv;

import dev.strata.engine.Keywords;

/**
 * The KV-cache formats (docs/ENGINE-CONTRACT.md, KV formats) — the single source of cell sizes. A
 * <em>vector record</em> holds one head vector of {@code head_dim} values; a <em>cell</em> holds
 * one token's K and V for every KV head of one layer: {@code [K h0][K h1]..[V h0][V h1]..}.
 */
public enum KvFormat {
  /** 256 × fp16. */
  FP16(0),
  /** int8 codes, then one fp16 scale per 64 values (d = amax/127). */
  INT8(1),
  /** FWHT-256 rotation, then llama.cpp block_q4_0 (32 values in 18 bytes). */
  Q4_0(2),
  /** K as int8, V as q4_0 — refused on Metal. */
  K8V4(3);

  /**
   * Extra cells every pool holds beyond the context (docs/ENGINE-CONTRACT.md, KV formats: cells =
   * context + 128).
   */
  public static final int EXTRA_CELLS = 128;

  /** Values per int8 scale group. */
  public static final int INT8_GROUP = 64;

  /** Values per q4_0 block; a block is fp16 d + 16 bytes of nibbles. */
  public static final int Q4_BLOCK = 32;

  public static final int Q4_BLOCK_BYTES = 2 + Q4_BLOCK / 2;

  private final int id;

  KvFormat(int id) {
    this.id = id;
  }

  /** The C ABI's format number. */
  public int id() {
    return id;
  }

  /** The name used by {@code --kv}: the constant's name in lower case ({@link Keywords#lower}). */
  public String flagName() {
    return Keywords.lower(this);
  }

  /** Parses a {@code --kv} value; null when unknown. */
  public static KvFormat fromName(String name) {
    return Keywords.find(KvFormat.class, KvFormat::flagName, name);
  }

  /** Parses a C ABI format number; null when unknown. */
  public static KvFormat fromId(int id) {
    return Keywords.find(KvFormat.class, KvFormat::id, id);
  }

  /**
   * Bytes of one K vector record and one V vector record of {@code headDim} values.
   *
   * @throws IllegalArgumentException when headDim does not fit the format's blocks
   */
  public long kRecordBytes(int headDim) {
    return recordBytes(this == K8V4 ? INT8 : this, headDim);
  }

  public long vRecordBytes(int headDim) {
    return recordBytes(this == K8V4 ? Q4_0 : this, headDim);
  }

  private static long recordBytes(KvFormat f, int headDim) {
    requireHeadDim(f, headDim);
    return switch (f) {
      case FP16 -> 2L * headDim;
      case INT8 -> headDim + 2L * (headDim / INT8_GROUP);
      case Q4_0 -> (long) (headDim / Q4_BLOCK) * Q4_BLOCK_BYTES;
      case K8V4 -> throw new AssertionError("k8v4 has no single record");
    };
  }

  /** Why no record holds a head: its head_dim ({@code %s}, as strata-ref's rules.def has it). */
  public static final String NEEDS_POSITIVE = "head_dim must be positive, got %s";

  /** Why int8 records cannot hold a head: its head_dim. */
  public static final String INT8_NEEDS = "int8 needs head_dim a multiple of 64, got %s";

  /** Why q4_0 records cannot hold a head: its head_dim. */
  public static final String Q4_0_NEEDS = "q4_0 needs head_dim 256 (FWHT-256), got %s";

  /**
   * The words of the one head_dim rule of this format's records beyond a positive head_dim ({@link
   * #NEEDS_POSITIVE} for fp16, which has no other); null for k8v4, whose K and V records are int8's
   * and q4_0's.
   */
  public String headDimRule() {
    return switch (this) {
      case FP16 -> NEEDS_POSITIVE;
      case INT8 -> INT8_NEEDS;
      case Q4_0 -> Q4_0_NEEDS;
      case K8V4 -> null;
    };
  }

  private static void requireHeadDim(KvFormat f, int headDim) {
    if (headDim <= 0) {
      throw new IllegalArgumentException(
          String.format(java.util.Locale.ROOT, NEEDS_POSITIVE, headDim));
    }
    if (f == INT8 && headDim % INT8_GROUP != 0) {
      throw new IllegalArgumentException(String.format(java.util.Locale.ROOT, INT8_NEEDS, headDim));
    }
    if (f == Q4_0 && headDim != 256) {
      // the FWHT rotation is defined over exactly 256 values (docs/ENGINE-CONTRACT.md, KV formats)
      throw new IllegalArgumentException(String.format(java.util.Locale.ROOT, Q4_0_NEEDS, headDim));
    }
  }

  /** Bytes of one cell: K and V records for every KV head of one layer. */
  public long cellBytes(int kvHeads, int headDim) {
    return cellBytes(kvHeads, headDim, headDim);
  }

  /**
   * Bytes of one cell when K and V heads differ in size ({@code key_length} ≠ {@code
   * value_length}): kvHeads × (K record + V record).
   */
  public long cellBytes(int kvHeads, int headDimK, int headDimV) {
    if (kvHeads <= 0) {
      throw new IllegalArgumentException("kv_heads must be positive, got " + kvHeads);
    }
    return kvHeads * (kRecordBytes(headDimK) + vRecordBytes(headDimV));
  }

  /** Whether this format's records hold K heads of headDimK values and V heads of headDimV. */
  public boolean holds(int headDimK, int headDimV) {
    return whyNot(headDimK, headDimV) == null;
  }

  /**
   * Why this format's records cannot hold K heads of headDimK values and V heads of headDimV ("int8
   * needs head_dim a multiple of 64, got 80"), or null when they can.
   */
  public String whyNot(int headDimK, int headDimV) {
    try {
      kRecordBytes(headDimK);
      vRecordBytes(headDimV);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /** Cells of a pool for a context: {@code context + 128}. */
  public static long cells(long context) {
    if (context <= 0) {
      throw new IllegalArgumentException("context must be positive, got " + context);
    }
    return context + EXTRA_CELLS;
  }

  /** Bytes of every pool: {@code cells × bytes_per_cell × qsa_layers}. */
  public long poolBytes(long context, int kvHeads, int headDim, int qsaLayers) {
    if (qsaLayers < 0) {
      throw new IllegalArgumentException("qsa layers must not be negative, got " + qsaLayers);
    }
    return Math.multiplyExact(
        Math.multiplyExact(cells(context), cellBytes(kvHeads, headDim)), qsaLayers);
  }
}
