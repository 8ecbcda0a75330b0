package dev.strata.engine.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** One GGUF metadata value. The factories check ranges, so a written file is always valid. */
public sealed interface GgufValue
    permits GgufValue.IntValue, GgufValue.FloatValue, GgufValue.StringValue, GgufValue.ArrayValue {

  GgufValueType type();

  /**
   * An integer or bool. Unsigned values are zero-extended, so a UINT64 above {@link Long#MAX_VALUE}
   * reads as a negative {@code bits}; {@link #fitsLong()} tells.
   *
   * @param type an integer type or BOOL
   * @param bits the value
   */
  record IntValue(GgufValueType type, long bits) implements GgufValue {
    public IntValue {
      if (!type.isInteger()) {
        throw new IllegalArgumentException("not an integer type: " + type);
      }
    }

    /** Whether {@link #bits} is the value itself (false only for a UINT64 of 2^63 or more). */
    public boolean fitsLong() {
      return type != GgufValueType.UINT64 || bits >= 0;
    }

    // equals and hashCode written out (the record's own, same meaning): the generated ones are
    // linked on first use by a class spun at run time, which the AOT cache cannot hold, and the
    // split-set check compares these on every strata-setup --print (docs/PERFORMANCE.md).
    @Override
    public boolean equals(Object o) {
      return o instanceof IntValue v && v.type == type && v.bits == bits;
    }

    @Override
    public int hashCode() {
      return 31 * type.hashCode() + Long.hashCode(bits);
    }
  }

  /** A FLOAT32 or FLOAT64. */
  record FloatValue(GgufValueType type, double value) implements GgufValue {
    public FloatValue {
      if (type != GgufValueType.FLOAT32 && type != GgufValueType.FLOAT64) {
        throw new IllegalArgumentException("not a float type: " + type);
      }
    }
  }

  /** A UTF-8 string. */
  record StringValue(String value) implements GgufValue {
    public StringValue {
      Objects.requireNonNull(value);
    }

    @Override
    public GgufValueType type() {
      return GgufValueType.STRING;
    }
  }

  /**
   * An array. The reader keeps the elements of short arrays only ({@link GgufReader#KEEP_ARRAY}): a
   * tokenizer's 150,000 strings are skipped and {@link #elements()} is then empty while {@link
   * #length()} says how many there were.
   *
   * @param elementType type of every element (never ARRAY: GGUF has no nested arrays)
   * @param length element count in the file
   * @param elements the elements, or empty when the reader skipped them
   */
  record ArrayValue(GgufValueType elementType, long length, List<GgufValue> elements)
      implements GgufValue {
    public ArrayValue {
      if (elementType == GgufValueType.ARRAY) {
        throw new IllegalArgumentException("GGUF has no nested arrays");
      }
      elements = List.copyOf(elements);
      if (!elements.isEmpty() && elements.size() != length) {
        throw new IllegalArgumentException("length " + length + " != " + elements.size());
      }
      for (GgufValue e : elements) {
        if (e.type() != elementType) {
          throw new IllegalArgumentException("element " + e + " is not " + elementType);
        }
      }
    }

    @Override
    public GgufValueType type() {
      return GgufValueType.ARRAY;
    }

    /** Whether the elements were kept (always true for an array built in memory). */
    public boolean complete() {
      return elements.size() == length;
    }
  }

  static IntValue u8(int v) {
    return new IntValue(GgufValueType.UINT8, checked(v, 0, 0xFF));
  }

  static IntValue i8(int v) {
    return new IntValue(GgufValueType.INT8, checked(v, Byte.MIN_VALUE, Byte.MAX_VALUE));
  }

  static IntValue u16(int v) {
    return new IntValue(GgufValueType.UINT16, checked(v, 0, 0xFFFF));
  }

  static IntValue i16(int v) {
    return new IntValue(GgufValueType.INT16, checked(v, Short.MIN_VALUE, Short.MAX_VALUE));
  }

  static IntValue u32(long v) {
    return new IntValue(GgufValueType.UINT32, checked(v, 0, 0xFFFF_FFFFL));
  }

  static IntValue i32(int v) {
    return new IntValue(GgufValueType.INT32, v);
  }

  /** A UINT64 given as its two's-complement bits (negative for values of 2^63 and more). */
  static IntValue u64(long bits) {
    return new IntValue(GgufValueType.UINT64, bits);
  }

  static IntValue i64(long v) {
    return new IntValue(GgufValueType.INT64, v);
  }

  static IntValue bool(boolean v) {
    return new IntValue(GgufValueType.BOOL, v ? 1 : 0);
  }

  static FloatValue f32(float v) {
    return new FloatValue(GgufValueType.FLOAT32, v);
  }

  static FloatValue f64(double v) {
    return new FloatValue(GgufValueType.FLOAT64, v);
  }

  static StringValue string(String v) {
    return new StringValue(v);
  }

  static ArrayValue array(GgufValueType elementType, List<? extends GgufValue> elements) {
    return new ArrayValue(elementType, elements.size(), List.copyOf(elements));
  }

  static ArrayValue strings(List<String> values) {
    List<GgufValue> e = new ArrayList<>(values.size());
    for (String s : values) {
      e.add(string(s));
    }
    return array(GgufValueType.STRING, e);
  }

  private static long checked(long v, long min, long max) {
    if (v < min || v > max) {
      throw new IllegalArgumentException(v + " is outside " + min + ".." + max);
    }
    return v;
  }
}
