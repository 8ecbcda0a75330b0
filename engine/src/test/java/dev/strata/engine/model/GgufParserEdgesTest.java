package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.model.GgufException.Kind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;

/**
 * What the GGUF reader says at each edge of the format, word for word: where a cut file ends (the
 * field named, the bytes missing), the counts that fit exactly, the alignment at 2^30, magic and
 * version words, a zero dimension, skipped arrays, strings longer than the read window, a channel
 * that returns a few bytes per read, and a file that shrinks under the reader. Layouts are written
 * by hand with {@link GgufBytes} (docs/GGUF.md), so offsets are independent of the reader.
 */
class GgufParserEdgesTest {
  private static final String REMEDY = ": the file is truncated; download it again";

  private static GgufFile read(byte[] b) {
    return GgufReader.read(new ByteArrayChannel(b, b.length), "m.gguf");
  }

  private static GgufException refused(byte[] b, int length) {
    GgufException e =
        assertThrows(
            GgufException.class,
            () -> GgufReader.read(new ByteArrayChannel(b, length), "cut.gguf"));
    assertEquals(ExitCodes.USAGE, e.exitCode());
    return e;
  }

  private static void says(byte[] b, int length, Kind kind, String message) {
    GgufException e = refused(b, length);
    assertEquals(kind, e.kind(), e.getMessage());
    assertEquals(message, e.getMessage());
  }

  private static void cutSays(byte[] b, int cut, String field, int missing) {
    says(
        b,
        cut,
        Kind.TRUNCATED,
        "cut.gguf: ends at byte "
            + cut
            + " inside "
            + field
            + " (needs "
            + missing
            + " more bytes)"
            + REMEDY);
  }

  @Test
  void aCutFileNamesTheFieldItEndsInAndTheBytesMissing() {
    GgufBytes b = GgufBytes.header(1, 2);
    int key1 = b.at();
    b.str("general.architecture");
    int type1 = b.at();
    b.u32(GgufBytes.TYPE_STRING);
    int value1 = b.at();
    b.str("llama");
    int key2 = b.at();
    b.str("n");
    int type2 = b.at();
    b.u32(GgufBytes.TYPE_UINT32);
    int value2 = b.at();
    b.u32(7);
    int name = b.at();
    b.str("t");
    int dims = b.at();
    b.u32(1);
    int dim = b.at();
    b.u64(8);
    int type = b.at();
    b.u32(GgufBytes.GGML_F32);
    int offset = b.at();
    b.u64(0);
    b.align(32);
    int data = b.at();
    byte[] whole = b.zeros(8 * 4).bytes();
    assertEquals(7, read(whole).unsigned("n"));

    cutSays(whole, 4, "the version", 4);
    cutSays(whole, 12, "the tensor count", 4);
    cutSays(whole, 16 + 3, "the metadata count", 5);
    // at the first entry the counts are checked against the bytes left: 2 × 14, 1 × 25
    says(
        whole,
        key1 + 27,
        Kind.TRUNCATED,
        "cut.gguf: claims 2 metadata entries, which need at least 28 bytes, but only 27 remain"
            + REMEDY);
    cutSays(whole, type1 + 1, "the type of general.architecture", 3);
    cutSays(whole, value1 + 4, "the length of general.architecture", 4);
    cutSays(whole, value1 + 8 + 2, "general.architecture", 3);
    cutSays(whole, key2 + 1, "the length of a metadata key", 7);
    cutSays(whole, key2 + 8, "a metadata key", 1);
    cutSays(whole, type2 + 2, "the type of n", 2);
    cutSays(whole, value2 + 3, "n", 1);
    cutSays(whole, name + 4, "the length of a tensor name", 4);
    cutSays(whole, name + 8, "a tensor name", 1);
    cutSays(whole, dims + 2, "the dimensions of t", 2);
    cutSays(whole, dim + 1, "a dimension of t", 7);
    cutSays(whole, type + 3, "the type of t", 1);
    cutSays(whole, offset + 4, "the data offset of t", 4);
    says(
        whole,
        data + 12,
        Kind.TRUNCATED,
        "cut.gguf: tensor t ends at byte "
            + (data + 32)
            + " but the file has "
            + (data + 12)
            + " bytes"
            + REMEDY);
  }

  @Test
  void aFileOfFourBytesEndsInsideTheVersionAndShorterOnesSayHowLongTheyAre() {
    byte[] magic = {'G', 'G', 'U', 'F'};
    cutSays(magic, 4, "the version", 4);
    says(magic, 2, Kind.TRUNCATED, "cut.gguf: is only 2 bytes long; download it again");
  }

  @Test
  void countsThatTheBytesLeftHoldExactlyAreRead() {
    // the smallest entry is 14 bytes: u64 key length, a 1-byte key, u32 type, a u8 value
    byte[] one = GgufBytes.header(0, 1).str("a").u32(GgufBytes.TYPE_UINT8).u8(7).bytes();
    assertEquals(24 + 14, one.length);
    assertEquals(7, read(one).unsigned("a"));
    // one byte less: the count check refuses before reading the entry
    says(
        one,
        one.length - 1,
        Kind.TRUNCATED,
        "cut.gguf: claims 1 metadata entries, which need at least 14 bytes, but only 13 remain"
            + REMEDY);
  }

  private static byte[] alignment(long a) {
    return GgufBytes.header(0, 1)
        .str("general.alignment")
        .u32(GgufBytes.TYPE_UINT32)
        .u32(a)
        .bytes();
  }

  @Test
  void anAlignmentOfTwoToTheThirtyIsReadAndTwoToTheThirtyOneIsRefused() {
    GgufFile f = read(alignment(1L << 30));
    assertEquals(1 << 30, f.alignment());
    assertEquals(1L << 30, f.dataOffset());
    byte[] at31 = alignment(1L << 31);
    says(
        at31,
        at31.length,
        Kind.MALFORMED,
        "cut.gguf: general.alignment is UINT32 2147483648; it must be a power of two up to 2^30;"
            + " the file is damaged");
  }

  @Test
  void aFileThatIsNotAGgufShowsItsFirstBytes() {
    byte[] png = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
    says(
        png,
        png.length,
        Kind.BAD_MAGIC,
        "cut.gguf: not a GGUF file (it starts with 0x89504e47, not \"GGUF\"); pass the model's"
            + " .gguf file");
    // an empty file has no first bytes to show: it is a cut download like any short one
    says(png, 0, Kind.TRUNCATED, "cut.gguf: is only 0 bytes long; download it again");
  }

  private static byte[] version(long v) {
    byte[] b = GgufBytes.header(0, 0).bytes();
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(4, (int) v);
    return b;
  }

  @Test
  void bigEndianFilesOfVersionTwoAndThreeAreNamedAndOtherVersionsAreQuoted() {
    for (long be : new long[] {0x0200_0000L, 0x0300_0000L}) {
      says(
          version(be),
          24,
          Kind.UNSUPPORTED_VERSION,
          "cut.gguf: is a big-endian GGUF; use the little-endian file of this model");
    }
    for (long v : new long[] {0, 4, 0x0400_0000L}) {
      says(
          version(v),
          24,
          Kind.UNSUPPORTED_VERSION,
          "cut.gguf: is GGUF version "
              + v
              + "; this reader knows versions 2 and 3 — update strata or use a v3 file");
    }
  }

  @Test
  void aZeroDimensionIsReadAsZeroBytesAndOneOf2To63IsRefused() {
    // gguf.cpp refuses only a negative ne[j]: a tensor with a 0 dimension holds no bytes, and the
    // next tensor starts at the same offset
    byte[] b =
        GgufWriter.toBytes(
            new LinkedHashMap<>(),
            List.of(
                GgufWriter.Tensor.of("empty", GgmlType.F32, 0),
                GgufWriter.Tensor.of("rows", GgmlType.F32, 4, 0),
                GgufWriter.Tensor.of("t", GgmlType.F32, 4)));
    GgufFile f = read(b);
    assertEquals(List.of(0L, 0L, 16L), f.tensors().stream().map(GgufTensor::bytes).toList());
    assertEquals(List.of(0L, 0L, 0L), f.tensors().stream().map(GgufTensor::offset).toList());

    byte[] huge =
        GgufBytes.header(1, 0)
            .str("t")
            .u32(1)
            .u64(Long.MIN_VALUE)
            .u32(GgufBytes.GGML_F32)
            .u64(0)
            .zeros(64)
            .bytes();
    says(
        huge,
        huge.length,
        Kind.ABSURD_COUNT,
        "cut.gguf: gives tensor t dimension 9223372036854775808 (over 2^63)");
  }

  /** 4097 u16 (one past KEEP_ARRAY: skipped, counted), then a key that must still read right. */
  private static byte[] skippedArrayThenKey() {
    List<GgufValue> types = new ArrayList<>();
    for (int i = 0; i < 4097; i++) {
      types.add(GgufValue.u16(i % 3));
    }
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("tokenizer.ggml.token_type", GgufValue.array(GgufValueType.UINT16, types));
    m.put("after", GgufValue.u32(42));
    return GgufWriter.toBytes(m, List.of());
  }

  @Test
  void aSkippedArrayIsSteppedOverAndACutInsideAnyOfItsElementsIsNamed() {
    byte[] b = skippedArrayThenKey();
    GgufFile f = read(b);
    GgufValue.ArrayValue a = (GgufValue.ArrayValue) f.get("tokenizer.ggml.token_type");
    assertEquals(4097, a.length());
    assertFalse(a.complete());
    assertEquals(42, f.unsigned("after"));
    // the array's elements start after header 24, key 8 + 25, type 4, element type 4, length 8;
    // a numeric array's bytes are checked whole before it is skipped
    int elements = 24 + 8 + 25 + 4 + 4 + 8;
    says(
        b,
        elements + 100,
        Kind.TRUNCATED,
        "cut.gguf: claims 4097 elements in tokenizer.ggml.token_type, which need at least 8194"
            + " bytes, but only 100 remain"
            + REMEDY);

    // a string array is skipped string by string: a cut inside the 4001st names the array
    List<String> words = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      words.add("tok" + i);
    }
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("tokenizer.ggml.tokens", GgufValue.strings(words));
    byte[] tokens = GgufWriter.toBytes(m, List.of());
    int at = 24 + 8 + 21 + 4 + 4 + 8;
    for (int i = 0; i < 4000; i++) {
      at += 8 + words.get(i).length();
    }
    cutSays(tokens, at + 8 + 2, "tokenizer.ggml.tokens", "tok4000".length() - 2);
    cutSays(tokens, at + 3, "the length of tokenizer.ggml.tokens", 5);
  }

  /** A chat template longer than the 64 KiB read window, then a key after it. */
  private static byte[] longTemplate(String template) {
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("tokenizer.chat_template", GgufValue.string(template));
    m.put("after", GgufValue.u32(42));
    return GgufWriter.toBytes(m, List.of());
  }

  private static String template() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; sb.length() < 100_000; i++) {
      sb.append("{% for m in messages %}").append(i).append('\n');
    }
    return sb.toString();
  }

  @Test
  void aStringLongerThanTheReadWindowReadsWholeAndACutInsideItSaysDownloadAgain() {
    String template = template();
    byte[] b = longTemplate(template);
    GgufFile f = read(b);
    assertEquals(template, f.string("tokenizer.chat_template"));
    assertEquals(42, f.unsigned("after"));
    int text = 24 + 8 + 23 + 4 + 8;
    int len = template.getBytes(StandardCharsets.UTF_8).length;
    cutSays(b, text + 70_000, "tokenizer.chat_template", len - 70_000);
  }

  @Test
  void aChannelThatReturnsSevenBytesPerReadGivesTheSameHeader() {
    for (byte[] b : List.of(TinyHybridModel.bytes(), longTemplate(template()))) {
      GgufFile whole = read(b);
      GgufFile trickled = GgufReader.read(new ByteArrayChannel(b, b.length, 7, b.length), "m.gguf");
      assertEquals(whole.metadata(), trickled.metadata());
      assertEquals(whole.tensors(), trickled.tensors());
      assertEquals(whole.dataOffset(), trickled.dataOffset());
    }
  }

  private static GgufException shrunk(byte[] b, int has) {
    GgufException e =
        assertThrows(
            GgufException.class,
            () ->
                GgufReader.read(
                    new ByteArrayChannel(b, has, Integer.MAX_VALUE, b.length), "m.gguf"));
    assertEquals(Kind.TRUNCATED, e.kind(), e.getMessage());
    return e;
  }

  @Test
  void aFileThatShrinksWhileBeingReadSaysTryAgainAndWhere() {
    byte[] tiny = TinyHybridModel.bytes();
    assertEquals(
        "m.gguf: became shorter while being read (at the magic); try again",
        shrunk(tiny, 2).getMessage());
    assertEquals(
        "m.gguf: became shorter while being read (at the tensor count); try again",
        shrunk(tiny, 10).getMessage());
    String template = template();
    byte[] b = longTemplate(template);
    assertEquals(
        "m.gguf: became shorter while being read (at tokenizer.chat_template); try again",
        shrunk(b, 70_000).getMessage());
    // the bytes the reader was given are whole up to the cut: nothing else went wrong
    assertEquals(template, read(Arrays.copyOf(b, b.length)).string("tokenizer.chat_template"));
  }
}
