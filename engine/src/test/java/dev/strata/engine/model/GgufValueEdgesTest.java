package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.model.GgufException.Kind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;

/**
 * Values and type ids at their edges: a UINT64 of 0 and of 2^64 - 1, bools written and read back, a
 * per-layer key of strings, the first ggml type id past the table.
 */
class GgufValueEdgesTest {
  private static GgufFile read(SequencedMap<String, GgufValue> m, List<GgufWriter.Tensor> t) {
    byte[] b = GgufWriter.toBytes(m, t);
    return GgufReader.read(new ByteArrayChannel(b, b.length), "v.gguf");
  }

  @Test
  void aUint64IsUnsignedFromZeroUpAndItsTopHalfIsShownUnsigned() {
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("zero", GgufValue.u64(0));
    m.put("top", GgufValue.u64(-1));
    GgufFile f = read(m, List.of());
    assertEquals(0, f.unsigned("zero"));
    GgufException e = assertThrows(GgufException.class, () -> f.unsigned("top"));
    assertEquals(Kind.INCONSISTENT, e.kind());
    assertEquals(
        "v.gguf: top is UINT64 18446744073709551615, expected a non-negative integer; the file is"
            + " damaged",
        e.getMessage());
  }

  @Test
  void boolsAreWrittenAsOneAndZero() {
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("yes", GgufValue.bool(true));
    m.put("no", GgufValue.bool(false));
    GgufFile f = read(m, List.of());
    assertEquals(new GgufValue.IntValue(GgufValueType.BOOL, 1), f.get("yes"));
    assertEquals(new GgufValue.IntValue(GgufValueType.BOOL, 0), f.get("no"));
    // only the integer types (and BOOL) make integer values
    for (GgufValueType t : GgufValueType.values()) {
      boolean integer =
          t != GgufValueType.FLOAT32
              && t != GgufValueType.FLOAT64
              && t != GgufValueType.STRING
              && t != GgufValueType.ARRAY;
      assertEquals(integer, t.isInteger(), t.name());
    }
  }

  @Test
  void aPerLayerKeyOfStringsIsRefusedAsNotOneIntegerPerBlock() {
    SequencedMap<String, GgufValue> m = TinyHybridModel.metadata();
    m.put("tiny.attention.head_count_kv", GgufValue.strings(List.of("2", "2", "2", "2")));
    GgufFile f = read(m, TinyHybridModel.tensors());
    GgufException e = assertThrows(GgufException.class, () -> GeometryRules.derive(List.of(f)));
    assertEquals(Kind.INCONSISTENT, e.kind());
    assertEquals(
        "v.gguf: tiny.attention.head_count_kv is an array of 4 STRING, expected one integer per"
            + " block (4)",
        e.getMessage());
  }

  @Test
  void theFirstGgmlTypeIdPastTheTableIsUnknown() {
    assertEquals(GgmlType.Q2_0, GgmlType.fromId(42));
    assertEquals(null, GgmlType.fromId(43));
    assertEquals(GgmlType.F32, GgmlType.fromId(0));
    assertEquals(null, GgmlType.fromId(-1));
  }
}
