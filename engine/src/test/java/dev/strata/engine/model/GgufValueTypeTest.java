package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class GgufValueTypeTest {
  /** gguf.h's {@code enum gguf_type} in id order (GGUF_TYPE_UINT8 = 0 … FLOAT64 = 12). */
  private static final List<String> GGUF_H =
      List.of(
          "UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "BOOL", "STRING",
          "ARRAY", "UINT64", "INT64", "FLOAT64");

  /** Bytes of one value, gguf.cpp's GGUF_TYPE_SIZE (0: STRING and ARRAY have no fixed size). */
  private static final List<Integer> SIZES = List.of(1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8);

  @Test
  void idsAndSizesAreGgufs() {
    assertEquals(GGUF_H.size(), GgufValueType.values().length);
    for (int id = 0; id < GGUF_H.size(); id++) {
      GgufValueType t = GgufValueType.valueOf(GGUF_H.get(id));
      assertEquals(id, t.id(), t.name());
      assertEquals(t, GgufValueType.fromId(id));
      assertEquals(SIZES.get(id), t.size(), t.name());
    }
    assertNull(GgufValueType.fromId(-1));
    assertNull(GgufValueType.fromId(13));
  }
}
