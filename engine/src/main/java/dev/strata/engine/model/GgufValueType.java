package dev.strata.engine.model;

/** The metadata value types of GGUF (ids as in ggml's gguf.h). */
public enum GgufValueType {
  UINT8(0, 1),
  INT8(1, 1),
  UINT16(2, 2),
  INT16(3, 2),
  UINT32(4, 4),
  INT32(5, 4),
  FLOAT32(6, 4),
  BOOL(7, 1),
  /** u64 length + UTF-8 bytes. */
  STRING(8, 0),
  /** u32 element type + u64 length + elements. */
  ARRAY(9, 0),
  UINT64(10, 8),
  INT64(11, 8),
  FLOAT64(12, 8);

  private static final GgufValueType[] BY_ID = new GgufValueType[13];

  static {
    for (GgufValueType t : values()) {
      BY_ID[t.id] = t;
    }
  }

  private final int id;
  private final int size;

  GgufValueType(int id, int size) {
    this.id = id;
    this.size = size;
  }

  /** The id written in the file. */
  public int id() {
    return id;
  }

  /** Bytes of one value; 0 for the variable-size STRING and ARRAY. */
  public int size() {
    return size;
  }

  /** Whether values of this type are integers (BOOL included: it is 0 or 1). */
  public boolean isInteger() {
    return size > 0 && this != FLOAT32 && this != FLOAT64;
  }

  /** The type of a file id, or null for an id GGUF does not define. */
  public static GgufValueType fromId(long id) {
    return id >= 0 && id < BY_ID.length ? BY_ID[(int) id] : null;
  }
}
