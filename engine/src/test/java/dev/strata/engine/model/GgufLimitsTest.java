package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.model.GgufException.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every limit of the GGUF reader at its boundary: the limit itself is accepted (the file then fails
 * later, for a reason of another kind, or reads), the limit + 1 is refused as {@link
 * Kind#ABSURD_COUNT} with exit code 2. The limits are written here as the numbers documented on
 * {@link GgufReader}'s constants (not read from them), so changing a limit fails this test.
 *
 * <p>A length or count at its limit is followed by a short body: the reader must get past the limit
 * check and stop at {@link Kind#TRUNCATED} — that is what "accepted" means here without writing 16
 * MiB files. Layout (docs/GGUF.md, llama.cpp's gguf.cpp): magic, u32 version, u64 tensor count, u64
 * metadata count, then entries (u64 key length, key, u32 type, value).
 */
class GgufLimitsTest {
  @TempDir Path dir;

  private static final int EXIT_USAGE = 2;
  private static final long STRING_LIMIT = 16L * 1024 * 1024; // 16 MiB
  private static final long ARRAY_LIMIT = 16L * 1024 * 1024; // 16 Mi elements
  private static final long TENSOR_LIMIT = 1024L * 1024; // 1 Mi
  private static final long KV_LIMIT = 1024L * 1024; // 1 Mi
  private static final int DIMS_LIMIT = 4; // GGML_MAX_DIMS
  private static final int SHARD_LIMIT = 1024;
  private static final int FOLDER_FILES_LIMIT = 10_000;
  private static final long KEPT_LIMIT = 64L * 1024 * 1024; // 64 MiB of keys, values, names

  private static GgufException refused(byte[] bytes) {
    GgufException e =
        assertThrows(
            GgufException.class,
            () -> GgufReader.read(new ByteArrayChannel(bytes, bytes.length), "limit.gguf"));
    assertEquals(EXIT_USAGE, e.exitCode(), e.getMessage());
    assertTrue(e.getMessage().startsWith("limit.gguf: "), e.getMessage());
    return e;
  }

  private static void expect(Kind kind, byte[] bytes) {
    GgufException e = refused(bytes);
    assertEquals(kind, e.kind(), e.getMessage());
  }

  @Test
  void aStringOfSixteenMibIsAcceptedAndOneByteMoreIsAbsurd() {
    // one entry whose key claims the length; 16 bytes follow, enough for the entry-count check
    expect(Kind.TRUNCATED, GgufBytes.header(0, 1).u64(STRING_LIMIT).zeros(16).bytes());
    expect(Kind.ABSURD_COUNT, GgufBytes.header(0, 1).u64(STRING_LIMIT + 1).zeros(16).bytes());
    assertTrue(
        refused(GgufBytes.header(0, 1).u64(STRING_LIMIT + 1).zeros(16).bytes())
            .getMessage()
            .contains("(limit 16777216)"));
  }

  @Test
  void anArrayOfSixteenMiElementsIsAcceptedAndOneMoreIsAbsurd() {
    expect(
        Kind.TRUNCATED,
        GgufBytes.header(0, 1)
            .str("a")
            .u32(GgufBytes.TYPE_ARRAY)
            .u32(GgufBytes.TYPE_UINT8)
            .u64(ARRAY_LIMIT)
            .bytes());
    expect(
        Kind.ABSURD_COUNT,
        GgufBytes.header(0, 1)
            .str("a")
            .u32(GgufBytes.TYPE_ARRAY)
            .u32(GgufBytes.TYPE_UINT8)
            .u64(ARRAY_LIMIT + 1)
            .bytes());
  }

  @Test
  void oneMiMetadataEntriesAreAcceptedAndOneMoreIsAbsurd() {
    expect(Kind.TRUNCATED, GgufBytes.header(0, KV_LIMIT).zeros(64).bytes());
    expect(Kind.ABSURD_COUNT, GgufBytes.header(0, KV_LIMIT + 1).zeros(64).bytes());
  }

  @Test
  void oneMiTensorsAreAcceptedAndOneMoreIsAbsurd() {
    expect(Kind.TRUNCATED, GgufBytes.header(TENSOR_LIMIT, 0).zeros(64).bytes());
    expect(Kind.ABSURD_COUNT, GgufBytes.header(TENSOR_LIMIT + 1, 0).zeros(64).bytes());
  }

  private static byte[] oneTensor(int dims) {
    GgufBytes b = GgufBytes.header(1, 0).str("t").u32(dims);
    for (int d = 0; d < dims; d++) {
      b.u64(1);
    }
    b.u32(GgufBytes.GGML_F32).u64(0);
    int header = b.bytes().length;
    int data = (header + 31) / 32 * 32; // default general.alignment 32
    return b.zeros(data - header + 4).bytes(); // one f32
  }

  @Test
  void aTensorOfFourDimensionsReadsAndFiveIsAbsurd() {
    GgufFile f = GgufReader.read(new ByteArrayChannel(oneTensor(4), oneTensor(4).length), "ok");
    assertEquals(4, f.tensors().getFirst().dims().size());
    assertEquals(4, f.tensors().getFirst().bytes());
    assertEquals(DIMS_LIMIT, f.tensors().getFirst().dims().size());
    GgufException e = refused(oneTensor(5));
    assertEquals(Kind.ABSURD_COUNT, e.kind(), e.getMessage());
    assertTrue(e.getMessage().contains("5 dimensions (ggml has at most 4)"), e.getMessage());
  }

  @Test
  void aSetOf1024ShardsIsAcceptedAnd1025IsAbsurd() throws IOException {
    Path ok = Files.createDirectory(dir.resolve("ok"));
    Files.write(ok.resolve("m-00001-of-0" + SHARD_LIMIT + ".gguf"), new byte[0]);
    GgufException accepted = assertThrows(GgufException.class, () -> GgufReader.readModel(ok));
    // past the limit check: the set is complete only when its 1023 other shards are there
    assertEquals(Kind.MISSING_SHARD, accepted.kind(), accepted.getMessage());
    assertEquals(EXIT_USAGE, accepted.exitCode());

    Path over = Files.createDirectory(dir.resolve("over"));
    Files.write(over.resolve("m-00001-of-0" + (SHARD_LIMIT + 1) + ".gguf"), new byte[0]);
    GgufException e = assertThrows(GgufException.class, () -> GgufReader.readModel(over));
    assertEquals(Kind.ABSURD_COUNT, e.kind(), e.getMessage());
    assertEquals(EXIT_USAGE, e.exitCode());
    assertTrue(e.getMessage().contains("(limit 1024)"), e.getMessage());
  }

  @Test
  void aFolderOf10000GgufFilesIsListedAnd10001IsAbsurd() throws IOException {
    Path folder = Files.createDirectory(dir.resolve("many"));
    for (int i = 0; i < FOLDER_FILES_LIMIT; i++) {
      Files.createFile(folder.resolve("m" + i + ".gguf"));
    }
    GgufException listed = assertThrows(GgufException.class, () -> GgufReader.readModel(folder));
    // every file was listed: 10000 models, not a limit refusal
    assertEquals(Kind.NOT_A_MODEL, listed.kind(), listed.getMessage());
    assertTrue(listed.getMessage().contains("holds 10000 models"), listed.getMessage());
    assertEquals(EXIT_USAGE, listed.exitCode());

    Files.createFile(folder.resolve("one-more.gguf"));
    GgufException e = assertThrows(GgufException.class, () -> GgufReader.readModel(folder));
    assertEquals(Kind.ABSURD_COUNT, e.kind(), e.getMessage());
    assertEquals(EXIT_USAGE, e.exitCode());
    assertTrue(e.getMessage().contains("more than 10000 .gguf files"), e.getMessage());
  }

  /**
   * Four entries "k0".."k3" whose keys (2 bytes each) and string values hold {@code total} bytes:
   * three values of 16 MiB (the string limit), the last one what is left.
   */
  private static byte[] keptStrings(long total) {
    long last = total - 4 * 2 - 3 * STRING_LIMIT;
    ByteBuffer b =
        ByteBuffer.allocate((int) (24 + 4 * (8 + 2 + 4 + 8) + total - 4 * 2))
            .order(ByteOrder.LITTLE_ENDIAN);
    b.put(GgufBytes.header(0, 4).bytes());
    for (int i = 0; i < 4; i++) {
      long len = i < 3 ? STRING_LIMIT : last;
      b.putLong(2).put(("k" + i).getBytes(StandardCharsets.US_ASCII));
      b.putInt(GgufBytes.TYPE_STRING).putLong(len);
      b.position(b.position() + (int) len); // the value: zeros
    }
    return b.array();
  }

  @Test
  void sixtyFourMibOfKeptStringsAreReadAndOneByteMoreIsAbsurd() {
    byte[] atLimit = keptStrings(KEPT_LIMIT);
    GgufFile f = GgufReader.read(new ByteArrayChannel(atLimit, atLimit.length), "limit.gguf");
    assertEquals(STRING_LIMIT - 8, f.string("k3").length());
    byte[] over = keptStrings(KEPT_LIMIT + 1);
    GgufException e = refused(over);
    assertEquals(Kind.ABSURD_COUNT, e.kind(), e.getMessage());
    assertEquals("limit.gguf: holds more than 64 MiB of metadata strings", e.getMessage());
  }
}
