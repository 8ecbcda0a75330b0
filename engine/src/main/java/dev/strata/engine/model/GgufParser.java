package dev.strata.engine.model;

import dev.strata.engine.model.GgufException.Kind;
import dev.strata.engine.text.Clip;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Reads the header of one GGUF (v2 or v3, little-endian) from a channel: magic, version, metadata
 * and tensor infos, each count checked against its limit and the bytes left ({@link GgufCursor}
 * reads the bytes). The limits are {@link GgufReader}'s; every failure is a {@link GgufException}
 * naming the file.
 */
final class GgufParser extends GgufCursor {
  private static final byte[] MAGIC = {'G', 'G', 'U', 'F'};
  private static final int DEFAULT_ALIGNMENT = 32;

  private long kept;
  private long keptElements;

  GgufParser(SeekableByteChannel ch, String name) throws IOException {
    super(ch, name);
  }

  GgufFile parse() throws IOException {
    int head = (int) Math.min(4, size);
    byte[] magic = new byte[head];
    for (int i = 0; i < head; i++) {
      magic[i] = raw(1, "the magic").get();
    }
    for (int i = 0; i < head; i++) {
      if (magic[i] != MAGIC[i]) {
        throw new GgufException(
            Kind.BAD_MAGIC,
            name,
            "not a GGUF file (it starts with "
                + hex(magic)
                + ", not \"GGUF\"); pass the model's .gguf file");
      }
    }
    if (size < 4) {
      throw fail(Kind.TRUNCATED, "is only " + size + " bytes long; download it again");
    }
    long version = u32("the version");
    if (version == 1) {
      throw fail(
          Kind.UNSUPPORTED_VERSION,
          "is GGUF v1 (2023), which this reader does not read; convert the model again with a"
              + " current llama.cpp");
    }
    if (version != 2 && version != 3) {
      long swapped = Integer.toUnsignedLong(Integer.reverseBytes((int) version));
      if (swapped == 2 || swapped == 3) {
        throw fail(
            Kind.UNSUPPORTED_VERSION,
            "is a big-endian GGUF; use the little-endian file of this model");
      }
      throw fail(
          Kind.UNSUPPORTED_VERSION,
          "is GGUF version "
              + version
              + "; this reader knows versions 2 and 3 — update strata or use a v3 file");
    }
    long tensorCount = u64("the tensor count");
    long kvCount = u64("the metadata count");
    // smallest entry: key length + 1-byte key + type + 1-byte value
    count(kvCount, GgufReader.MAX_KVS, 8 + 1 + 4 + 1, "metadata entries");
    // smallest tensor info: name length + 1-byte name + n_dims + type + offset
    count(tensorCount, GgufReader.MAX_TENSORS, 8 + 1 + 4 + 4 + 8, "tensors");

    SequencedMap<String, GgufValue> metadata = new LinkedHashMap<>();
    for (long i = 0; i < kvCount; i++) {
      String key = string(true, "a metadata key");
      String shown = Clip.clip(key);
      if (key.isEmpty()) {
        throw fail(Kind.MALFORMED, "has an empty metadata key; the file is damaged");
      }
      GgufValueType type = valueType("the type of " + shown, shown + " value type");
      GgufValue value = value(type, shown);
      if (metadata.putIfAbsent(key, value) != null) {
        throw fail(Kind.MALFORMED, "holds metadata key " + shown + " twice; the file is damaged");
      }
    }
    int alignment = alignment(metadata.get("general.alignment"));

    List<GgufTensor> tensors = new ArrayList<>((int) Math.min(tensorCount, 4096));
    Set<String> names = new HashSet<>();
    for (long i = 0; i < tensorCount; i++) {
      tensors.add(tensorInfo(names));
    }
    long dataOffset = alignUp(pos, alignment);
    long expected = 0;
    for (GgufTensor t : tensors) {
      if (t.offset() != expected) {
        throw fail(
            Kind.MALFORMED,
            "puts tensor "
                + Clip.clip(t.name())
                + " at data offset "
                + Long.toUnsignedString(t.offset())
                + ", expected "
                + expected
                + " (tensors out of order or overlapping); the file is damaged");
      }
      long end;
      try {
        end = Math.addExact(dataOffset, Math.addExact(t.offset(), t.bytes()));
      } catch (ArithmeticException e) {
        throw fail(Kind.ABSURD_COUNT, "tensor " + Clip.clip(t.name()) + " ends past 2^63 bytes");
      }
      if (end > size) {
        throw fail(
            Kind.TRUNCATED,
            "tensor "
                + Clip.clip(t.name())
                + " ends at byte "
                + end
                + " but the file has "
                + size
                + " bytes: the file is truncated; download it again");
      }
      expected = alignUp(t.offset() + t.bytes(), alignment);
    }
    return new GgufFile(name, (int) version, size, alignment, dataOffset, metadata, tensors);
  }

  private int alignment(GgufValue v) {
    if (v == null) {
      return DEFAULT_ALIGNMENT;
    }
    if (v instanceof GgufValue.IntValue i
        && i.type() != GgufValueType.BOOL
        && i.bits() > 0
        && i.bits() <= (1 << 30)
        && Long.bitCount(i.bits()) == 1) {
      return (int) i.bits();
    }
    throw fail(
        Kind.MALFORMED,
        "general.alignment is "
            + GgufFile.describe(v)
            + "; it must be a power of two up to 2^30; the file is damaged");
  }

  private GgufTensor tensorInfo(Set<String> names) throws IOException {
    String name = string(true, "a tensor name");
    // The clipped name and the descriptions below are built only for a message: this loop runs once
    // per tensor, thousands of times on every strata-setup --print (docs/PERFORMANCE.md).
    Supplier<String> tn = () -> Clip.clip(name);
    if (name.isEmpty()) {
      throw fail(Kind.MALFORMED, "has a tensor without a name; the file is damaged");
    }
    if (!names.add(name)) {
      throw fail(Kind.MALFORMED, "holds tensor " + tn.get() + " twice; the file is damaged");
    }
    long nDims = u32(() -> "the dimensions of " + tn.get());
    if (nDims > GgufReader.MAX_DIMS) {
      throw fail(
          Kind.ABSURD_COUNT,
          "gives tensor "
              + tn.get()
              + " "
              + nDims
              + " dimensions (ggml has at most "
              + GgufReader.MAX_DIMS
              + ")");
    }
    List<Long> dims = new ArrayList<>((int) nDims);
    for (int d = 0; d < nDims; d++) {
      long v = u64(() -> "a dimension of " + tn.get());
      if (v < 0) {
        throw fail(
            Kind.ABSURD_COUNT,
            "gives tensor " + tn.get() + " dimension " + Long.toUnsignedString(v) + " (over 2^63)");
      }
      dims.add(v);
    }
    long typeId = u32(() -> "the type of " + tn.get());
    GgmlType type = GgmlType.fromId(typeId);
    if (type == null) {
      throw fail(
          Kind.UNKNOWN_TYPE,
          "tensor "
              + tn.get()
              + " has ggml type "
              + typeId
              + (GgmlType.isRemovedId(typeId)
                  ? ", which ggml removed; quantize the model again with a current llama.cpp"
                  : ", which this reader does not know; update strata or use another"
                      + " quantization"));
    }
    long offset = u64(() -> "the data offset of " + tn.get());
    long bytes;
    try {
      bytes = type.bytes(dims);
    } catch (IllegalArgumentException e) {
      throw fail(Kind.MALFORMED, "tensor " + tn.get() + ": " + e.getMessage());
    } catch (ArithmeticException e) {
      throw fail(Kind.ABSURD_COUNT, "tensor " + tn.get() + " " + dims + " overflows 2^63 bytes");
    }
    return new GgufTensor(name, type, dims, offset, bytes);
  }

  private GgufValue value(GgufValueType type, String key) throws IOException {
    return switch (type) {
      case UINT8 -> new GgufValue.IntValue(type, raw(1, key).get() & 0xFFL);
      case INT8 -> new GgufValue.IntValue(type, raw(1, key).get());
      case UINT16 -> new GgufValue.IntValue(type, raw(2, key).getShort() & 0xFFFFL);
      case INT16 -> new GgufValue.IntValue(type, raw(2, key).getShort());
      case UINT32 -> new GgufValue.IntValue(type, u32(key));
      case INT32 -> new GgufValue.IntValue(type, raw(4, key).getInt());
      case UINT64, INT64 -> new GgufValue.IntValue(type, raw(8, key).getLong());
      case FLOAT32 -> new GgufValue.FloatValue(type, raw(4, key).getFloat());
      case FLOAT64 -> new GgufValue.FloatValue(type, raw(8, key).getDouble());
      case BOOL -> {
        byte b = raw(1, key).get();
        if (b != 0 && b != 1) {
          throw fail(Kind.MALFORMED, "gives bool " + key + " the value " + b + "; not 0 or 1");
        }
        yield new GgufValue.IntValue(type, b);
      }
      case STRING -> new GgufValue.StringValue(string(true, key));
      case ARRAY -> array(key);
    };
  }

  /**
   * Reads a u32 value type id ({@code read} names it for a truncated file); an id GGUF does not
   * define is malformed: "gives {@code gives} N, which GGUF does not define".
   */
  private GgufValueType valueType(String read, String gives) throws IOException {
    long typeId = u32(read);
    GgufValueType type = GgufValueType.fromId(typeId);
    if (type == null) {
      throw fail(Kind.MALFORMED, "gives " + gives + " " + typeId + ", which GGUF does not define");
    }
    return type;
  }

  private GgufValue array(String key) throws IOException {
    GgufValueType et = valueType("the element type of " + key, "array " + key + " element type");
    if (et == GgufValueType.ARRAY) {
      throw fail(Kind.MALFORMED, "nests arrays in " + key + ", which GGUF does not allow");
    }
    long n = u64("the length of " + key);
    count(
        n, GgufReader.MAX_ARRAY, et == GgufValueType.STRING ? 8 : et.size(), "elements in " + key);
    if (n <= GgufReader.KEEP_ARRAY && keptElements + n <= GgufReader.MAX_KEPT_ELEMENTS) {
      keptElements += n;
      List<GgufValue> elements = new ArrayList<>((int) n);
      for (int i = 0; i < n; i++) {
        elements.add(value(et, key));
      }
      return new GgufValue.ArrayValue(et, n, elements);
    }
    if (et == GgufValueType.STRING) {
      for (long i = 0; i < n; i++) {
        string(false, key);
      }
    } else {
      skip(n * et.size(), key);
    }
    return new GgufValue.ArrayValue(et, n, List.of());
  }

  /** Checks a count against its limit, then against the bytes left at minBytes each. */
  private void count(long n, long max, long minBytes, String what) throws IOException {
    if (n < 0 || n > max) {
      throw fail(
          Kind.ABSURD_COUNT,
          "claims "
              + Long.toUnsignedString(n)
              + " "
              + what
              + " (limit "
              + max
              + "); the file is damaged or not a model");
    }
    if (n * minBytes > size - pos) {
      throw fail(
          Kind.TRUNCATED,
          "claims "
              + n
              + " "
              + what
              + ", which need at least "
              + n * minBytes
              + " bytes, but only "
              + (size - pos)
              + " remain: the file is truncated; download it again");
    }
  }

  private String string(boolean keep, String what) throws IOException {
    long len = u64(() -> "the length of " + what);
    if (len < 0 || len > GgufReader.MAX_STRING) {
      throw fail(
          Kind.ABSURD_COUNT,
          "claims a string of "
              + Long.toUnsignedString(len)
              + " bytes in "
              + what
              + " (limit "
              + GgufReader.MAX_STRING
              + ")");
    }
    if (!keep) {
      skip(len, what);
      return "";
    }
    need(len, what);
    kept += len;
    if (kept > GgufReader.MAX_KEPT_BYTES) {
      throw fail(
          Kind.ABSURD_COUNT,
          "holds more than " + (GgufReader.MAX_KEPT_BYTES >> 20) + " MiB of metadata strings");
    }
    return new String(bytes((int) len, what), StandardCharsets.UTF_8);
  }

  private static long alignUp(long v, int alignment) {
    return (v + alignment - 1) & -(long) alignment;
  }

  private static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder("0x");
    for (byte x : b) {
      sb.append(String.format("%02x", x & 0xFF));
    }
    return b.length == 0 ? "nothing (empty file)" : sb.toString();
  }
}
