package dev.strata.engine.model;

import java.util.List;

/**
 * The ggml tensor types a GGUF may hold: id as written in the file, elements per block, bytes per
 * block (ggml's type traits, {@code ggml/src/ggml.c}). A tensor's bytes follow from these and its
 * shape alone, which is how the reader sizes a model without touching its data.
 */
public enum GgmlType {
  F32(0, 1, 4),
  F16(1, 1, 2),
  Q4_0(2, 32, 18),
  Q4_1(3, 32, 20),
  Q5_0(6, 32, 22),
  Q5_1(7, 32, 24),
  Q8_0(8, 32, 34),
  Q8_1(9, 32, 36),
  Q2_K(10, 256, 84),
  Q3_K(11, 256, 110),
  Q4_K(12, 256, 144),
  Q5_K(13, 256, 176),
  Q6_K(14, 256, 210),
  Q8_K(15, 256, 292),
  IQ2_XXS(16, 256, 66),
  IQ2_XS(17, 256, 74),
  IQ3_XXS(18, 256, 98),
  IQ1_S(19, 256, 50),
  IQ4_NL(20, 32, 18),
  IQ3_S(21, 256, 110),
  IQ2_S(22, 256, 82),
  IQ4_XS(23, 256, 136),
  I8(24, 1, 1),
  I16(25, 1, 2),
  I32(26, 1, 4),
  I64(27, 1, 8),
  F64(28, 1, 8),
  IQ1_M(29, 256, 56),
  BF16(30, 1, 2),
  TQ1_0(34, 256, 54),
  TQ2_0(35, 256, 66),
  MXFP4(39, 32, 17),
  NVFP4(40, 64, 36),
  Q1_0(41, 128, 18),
  Q2_0(42, 64, 18);

  /** Ids ggml once defined and has since removed from GGUF files (re-quantize such a model). */
  private static final List<Integer> REMOVED = List.of(4, 5, 31, 32, 33, 36, 37, 38);

  private static final IdIndex<GgmlType> BY_ID = new IdIndex<>(values(), GgmlType::id);

  /**
   * How a GGUF file stores a type: its id, and ggml's block layout ({@code blck_size} and {@code
   * type_size} of the type's traits; tensors are stored as whole blocks).
   *
   * @param id ggml's {@code enum ggml_type} value, which a tensor info writes
   * @param blockSize elements per block: a row's first dimension must be a multiple of it
   * @param blockBytes bytes per block
   */
  public record Layout(int id, int blockSize, int blockBytes) {}

  private final Layout layout;

  GgmlType(int id, int blockSize, int blockBytes) {
    layout = new Layout(id, blockSize, blockBytes);
  }

  /** The id and the block layout. */
  public Layout layout() {
    return layout;
  }

  /** The id a GGUF file writes for the type. */
  public int id() {
    return layout.id();
  }

  /**
   * ggml's name of the type ({@code type_traits[].type_name}): the constant in lower case, save the
   * k-quants' upper-case K ({@code q4_K}).
   */
  public String ggmlName() {
    String n = name().toLowerCase(java.util.Locale.ROOT);
    return n.endsWith("_k") ? n.substring(0, n.length() - 1) + "K" : n;
  }

  /**
   * Bytes of a tensor of this type and shape (ggml order: dims[0] is the row).
   *
   * @throws IllegalArgumentException when dims[0] is not a multiple of the block size or a
   *     dimension is negative
   * @throws ArithmeticException when the size overflows a long
   */
  public long bytes(List<Long> dims) {
    long row = dims.isEmpty() ? 1 : dims.get(0);
    if (row < 0 || row % layout.blockSize() != 0) {
      throw new IllegalArgumentException(
          "row of "
              + row
              + " elements is not a multiple of "
              + name()
              + "'s block of "
              + layout.blockSize());
    }
    long blocks = row / layout.blockSize();
    for (int i = 1; i < dims.size(); i++) {
      long d = dims.get(i);
      if (d < 0) {
        throw new IllegalArgumentException("negative dimension " + d);
      }
      blocks = Math.multiplyExact(blocks, d);
    }
    return Math.multiplyExact(blocks, (long) layout.blockBytes());
  }

  /** The type of a file id, or null when unknown. */
  public static GgmlType fromId(long id) {
    return BY_ID.get(id);
  }

  /** Whether ggml used this id once and removed it (the model needs re-quantizing). */
  public static boolean isRemovedId(long id) {
    return id >= 0 && id < 64 && REMOVED.contains((int) id);
  }
}
