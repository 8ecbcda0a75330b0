package dev.strata.engine.model;

/**
 * The metadata value types of GGUF: ggml's gguf.h {@code enum gguf_type}, declared in its order, so
 * a constant's ordinal is its id ({@code GGUF_TYPE_UINT8} = 0 … {@code GGUF_TYPE_FLOAT64} = 12,
 * numbered without gaps; the format fixes them and GgufValueTypeTest pins each).
 */
public enum GgufValueType {
  UINT8,
  INT8,
  UINT16,
  INT16,
  UINT32,
  INT32,
  FLOAT32,
  BOOL,
  /** u64 length + UTF-8 bytes. */
  STRING,
  /** u32 element type + u64 length + elements. */
  ARRAY,
  UINT64,
  INT64,
  FLOAT64;

  private static final GgufValueType[] BY_ID = values();

  /** The id written in the file. */
  public int id() {
    return ordinal();
  }

  /**
   * Bytes of one value (ggml's {@code GGUF_TYPE_SIZE}, gguf.cpp); 0 for the variable-size STRING
   * and ARRAY.
   */
  public int size() {
    return switch (this) {
      case UINT8, INT8, BOOL -> 1;
      case UINT16, INT16 -> 2;
      case UINT32, INT32, FLOAT32 -> 4;
      case UINT64, INT64, FLOAT64 -> 8;
      case STRING, ARRAY -> 0;
    };
  }

  /** Whether values of this type are integers (BOOL included: it is 0 or 1). */
  public boolean isInteger() {
    return size() > 0 && this != FLOAT32 && this != FLOAT64;
  }

  /** The type of a file id, or null for an id GGUF does not define. */
  public static GgufValueType fromId(long id) {
    return id >= 0 && id < BY_ID.length ? BY_ID[(int) id] : null;
  }
}
