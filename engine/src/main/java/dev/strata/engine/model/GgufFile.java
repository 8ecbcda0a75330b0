package dev.strata.engine.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;

/**
 * The header of one GGUF file: its metadata and tensor infos, in file order.
 *
 * @param file the file as the user named it (for messages)
 * @param version GGUF version (2 or 3)
 * @param size file bytes
 * @param alignment data alignment (general.alignment, default 32)
 * @param dataOffset where the data section starts
 * @param metadata every key/value, in file order (long arrays without their elements)
 * @param tensors every tensor info, in file order
 */
public record GgufFile(
    String file,
    int version,
    long size,
    int alignment,
    long dataOffset,
    SequencedMap<String, GgufValue> metadata,
    List<GgufTensor> tensors) {

  public GgufFile {
    metadata = Collections.unmodifiableSequencedMap(new LinkedHashMap<>(metadata));
    tensors = List.copyOf(tensors);
  }

  /** A value, or null when the key is absent. */
  public GgufValue get(String key) {
    return metadata.get(key);
  }

  /** A string value, or null when absent or not a string. */
  public String string(String key) {
    return metadata.get(key) instanceof GgufValue.StringValue s ? s.value() : null;
  }

  /**
   * A non-negative integer value of any integer type, or -1 when the key is absent.
   *
   * @throws GgufException (INCONSISTENT) when the key holds something else or a negative number
   */
  public long unsigned(String key) {
    GgufValue v = metadata.get(key);
    if (v == null) {
      return -1;
    }
    if (v instanceof GgufValue.IntValue i
        && i.type() != GgufValueType.BOOL
        && i.fitsLong()
        && i.bits() >= 0) {
      return i.bits();
    }
    throw new GgufException(
        GgufException.Kind.INCONSISTENT,
        file,
        key + " is " + describe(v) + ", expected a non-negative integer; the file is damaged");
  }

  static String describe(GgufValue v) {
    return switch (v) {
      case GgufValue.IntValue i ->
          i.type()
              + " "
              + (i.fitsLong() ? Long.toString(i.bits()) : Long.toUnsignedString(i.bits()));
      case GgufValue.FloatValue f -> f.type() + " " + f.value();
      case GgufValue.StringValue s -> "a string";
      case GgufValue.ArrayValue a -> "an array of " + a.length() + " " + a.elementType();
    };
  }
}
