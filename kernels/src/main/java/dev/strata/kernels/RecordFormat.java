package dev.strata.kernels;

import java.util.Locale;

/**
 * The vector-record formats of docs/ENGINE-CONTRACT.md, KV formats, in the order of the C ABI's
 * ids. k8v4 (id 3) is a cell-level mix of an int8 K record and a q4_0 V record, not a record
 * format, so it has no constant here.
 */
public enum RecordFormat {
  /** head_dim × fp16. */
  FP16,
  /** head_dim int8 codes, then one fp16 scale per 64 values. */
  INT8,
  /** FWHT-256, then 8 llama.cpp block_q4_0 (144 bytes). */
  Q4_0;

  /** The only head_dim q4_0 supports: FWHT-256 rotates exactly 256 values. */
  public static final int Q4_DIM = 256;

  /** Values per q4_0 block, and its bytes (fp16 d + 16 bytes of nibbles). */
  public static final int Q4_BLOCK = 32;

  public static final int Q4_BLOCK_BYTES = 18;

  /** Values per int8 scale. */
  public static final int INT8_GROUP = 64;

  /**
   * The {@code --kv} spelling (the constant's name in lower case), also the stem of the test-vector
   * files.
   */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether headDim fits the format: positive; int8 a multiple of 64; q4_0 exactly 256. */
  public boolean accepts(int headDim) {
    return headDim > 0
        && switch (this) {
          case FP16 -> true;
          case INT8 -> headDim % INT8_GROUP == 0;
          case Q4_0 -> headDim == Q4_DIM;
        };
  }

  /**
   * Bytes of one record of headDim values.
   *
   * @throws IllegalArgumentException when headDim does not fit the format
   */
  public int recordBytes(int headDim) {
    if (!accepts(headDim)) {
      throw new IllegalArgumentException(
          label()
              + " does not accept head_dim "
              + headDim
              + " (int8: a multiple of 64, q4_0: 256)");
    }
    return switch (this) {
      case FP16 -> 2 * headDim;
      case INT8 -> headDim + 2 * (headDim / INT8_GROUP);
      case Q4_0 -> (Q4_DIM / Q4_BLOCK) * Q4_BLOCK_BYTES;
    };
  }
}
