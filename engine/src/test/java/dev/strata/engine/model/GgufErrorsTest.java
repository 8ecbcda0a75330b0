package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.model.GgufException.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way a model file can be wrong gives its own typed error, exit code 2, and a message that
 * names the file. Offsets below follow the GGUF layout: magic 0, version 4, tensor count 8,
 * metadata count 16, first entry 24.
 */
class GgufErrorsTest {
  @TempDir Path dir;

  private static GgufException expect(Kind kind, Path file, Path named) {
    GgufException e = assertThrows(GgufException.class, () -> GgufReader.readModel(file));
    assertEquals(kind, e.kind(), e.getMessage());
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertTrue(e.getMessage().startsWith(named.toString() + ": "), e.getMessage());
    assertEquals(1, e.getMessage().lines().count(), "one line");
    return e;
  }

  private static GgufException expect(Kind kind, Path file) {
    return expect(kind, file, file);
  }

  private Path file(String name, byte[] bytes) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, bytes);
    return p;
  }

  private static byte[] patch(byte[] b, int offset, int width, long value) {
    byte[] c = b.clone();
    ByteBuffer bb = ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN);
    if (width == 8) {
      bb.putLong(offset, value);
    } else {
      bb.putInt(offset, (int) value);
    }
    return c;
  }

  /** One F32 tensor "t" of 3 elements, no metadata: n_dims at 33, dim at 37, type 45, offset 49. */
  private static byte[] oneTensor() {
    return GgufWriter.toBytes(
        new LinkedHashMap<>(), List.of(GgufWriter.Tensor.of("t", GgmlType.F32, 3)));
  }

  /** One entry "arr" = [1, 2, 3] (u8): its length is at 24 + 8 + 3 + 4 + 4 = 43. */
  private static byte[] oneArray() {
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put(
        "arr",
        GgufValue.array(
            GgufValueType.UINT8, List.of(GgufValue.u8(1), GgufValue.u8(2), GgufValue.u8(3))));
    return GgufWriter.toBytes(m, List.of());
  }

  @Test
  void badMagic() throws IOException {
    byte[] b = TinyHybridModel.bytes();
    b[0] = 0x7f;
    GgufException e = expect(Kind.BAD_MAGIC, file("elf.gguf", b));
    assertTrue(e.getMessage().contains("not a GGUF file"), e.getMessage());
    expect(Kind.BAD_MAGIC, file("notes.gguf", "hello, world".getBytes()));
  }

  @Test
  void truncated() throws IOException {
    byte[] b = TinyHybridModel.bytes();
    expect(Kind.TRUNCATED, file("cut-in-data.gguf", Arrays.copyOf(b, b.length - 100)));
    expect(Kind.TRUNCATED, file("cut-in-header.gguf", Arrays.copyOf(b, 200)));
    expect(Kind.TRUNCATED, file("cut-in-count.gguf", Arrays.copyOf(b, 12)));
    expect(Kind.TRUNCATED, file("empty.gguf", new byte[0]));
    // a count within limits that the remaining bytes cannot hold
    expect(Kind.TRUNCATED, file("kv-1000.gguf", patch(oneTensor(), 16, 8, 1000)));
    expect(Kind.TRUNCATED, file("array-16m.gguf", patch(oneArray(), 43, 8, 16L << 20)));
  }

  @Test
  void absurdCountsAndLengths() throws IOException {
    byte[] tiny = TinyHybridModel.bytes();
    expect(Kind.ABSURD_COUNT, file("tensors.gguf", patch(tiny, 8, 8, 1L << 40)));
    expect(Kind.ABSURD_COUNT, file("tensors-neg.gguf", patch(tiny, 8, 8, -1)));
    expect(Kind.ABSURD_COUNT, file("kvs.gguf", patch(tiny, 16, 8, Long.MAX_VALUE)));
    expect(Kind.ABSURD_COUNT, file("key.gguf", patch(tiny, 24, 8, 1L << 40)));
    expect(Kind.ABSURD_COUNT, file("array.gguf", patch(oneArray(), 43, 8, 1L << 62)));
    expect(Kind.ABSURD_COUNT, file("dims.gguf", patch(oneTensor(), 33, 4, 5)));
    expect(Kind.ABSURD_COUNT, file("dim.gguf", patch(oneTensor(), 37, 8, -32)));
    // a 2-D tensor whose element count overflows: dims at 37 and 45
    byte[] two =
        GgufWriter.toBytes(
            new LinkedHashMap<>(), List.of(GgufWriter.Tensor.of("t", GgmlType.F32, 4, 4)));
    expect(
        Kind.ABSURD_COUNT,
        file("overflow.gguf", patch(patch(two, 37, 8, 1L << 40), 45, 8, 1L << 40)));
  }

  @Test
  void unsupportedVersions() throws IOException {
    byte[] tiny = TinyHybridModel.bytes();
    GgufException v1 = expect(Kind.UNSUPPORTED_VERSION, file("v1.gguf", patch(tiny, 4, 4, 1)));
    assertTrue(v1.getMessage().contains("v1"), v1.getMessage());
    expect(Kind.UNSUPPORTED_VERSION, file("v4.gguf", patch(tiny, 4, 4, 4)));
    expect(Kind.UNSUPPORTED_VERSION, file("v-huge.gguf", patch(tiny, 4, 4, 0xFFFF_FFFFL)));
    GgufException be =
        expect(Kind.UNSUPPORTED_VERSION, file("be.gguf", patch(tiny, 4, 4, 0x0300_0000)));
    assertTrue(be.getMessage().contains("big-endian"), be.getMessage());
  }

  @Test
  void unknownTensorType() throws IOException {
    GgufException unknown =
        expect(Kind.UNKNOWN_TYPE, file("t99.gguf", patch(oneTensor(), 45, 4, 99)));
    assertTrue(unknown.getMessage().contains("tensor t has ggml type 99"), unknown.getMessage());
    GgufException removed =
        expect(Kind.UNKNOWN_TYPE, file("t31.gguf", patch(oneTensor(), 45, 4, 31)));
    assertTrue(removed.getMessage().contains("removed"), removed.getMessage());
  }

  @Test
  void malformedStructure() throws IOException {
    expect(Kind.MALFORMED, file("offset.gguf", patch(oneTensor(), 49, 8, 32)));
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("aa", GgufValue.u8(1));
    m.put("ab", GgufValue.u8(2));
    byte[] dup = GgufWriter.toBytes(m, List.of());
    dup[24 + 8 + 2 + 4 + 1 + 8 + 1] = 'a'; // second key "ab" → "aa"
    expect(Kind.MALFORMED, file("dup-key.gguf", dup));
    byte[] nested = patch(oneArray(), 39, 4, GgufValueType.ARRAY.id());
    expect(Kind.MALFORMED, file("nested.gguf", nested));
    expect(Kind.MALFORMED, file("value-type.gguf", patch(oneArray(), 35, 4, 13)));
    // F32 is fine with a row of 3, Q8_0 is not (block of 32)
    expect(
        Kind.MALFORMED, file("partial-block.gguf", patch(oneTensor(), 45, 4, GgmlType.Q8_0.id())));
  }

  @Test
  void missingShard() throws IOException {
    List<Path> shards =
        GgufWriter.writeSplit(dir, "m", 4, TinyHybridModel.metadata(), TinyHybridModel.tensors());
    Files.delete(shards.get(2));
    GgufException e = expect(Kind.MISSING_SHARD, shards.get(0), shards.get(2));
    assertTrue(e.getMessage().contains("shard 3 of 4"), e.getMessage());
    assertEquals(shards.get(2).toString(), e.file());
    // the same from the folder, and from the first shard's absence
    expect(Kind.MISSING_SHARD, dir, shards.get(2));
    Files.delete(shards.get(0));
    expect(Kind.MISSING_SHARD, shards.get(1), shards.get(0));
  }

  @Test
  void shardOfAnotherModel() throws IOException {
    Path a = Files.createDirectory(dir.resolve("a"));
    Path b = Files.createDirectory(dir.resolve("b"));
    List<Path> mine =
        GgufWriter.writeSplit(a, "m", 4, TinyHybridModel.metadata(), TinyHybridModel.tensors());
    List<GgufWriter.Tensor> fewer =
        TinyHybridModel.tensors().subList(0, TinyHybridModel.tensors().size() - 1);
    List<Path> theirs = GgufWriter.writeSplit(b, "m", 4, TinyHybridModel.metadata(), fewer);

    Files.copy(theirs.get(2), mine.get(2), StandardCopyOption.REPLACE_EXISTING);
    expect(Kind.FOREIGN_SHARD, mine.get(0), mine.get(2));

    // the first shard swapped: still the odd one out that is named
    restore(a, mine);
    Files.copy(theirs.get(0), mine.get(0), StandardCopyOption.REPLACE_EXISTING);
    expect(Kind.FOREIGN_SHARD, mine.get(0), mine.get(0));

    // a shard of a 5-way split renamed into the set
    restore(a, mine);
    List<Path> five =
        GgufWriter.writeSplit(b, "m", 5, TinyHybridModel.metadata(), TinyHybridModel.tensors());
    Files.copy(five.get(1), mine.get(1), StandardCopyOption.REPLACE_EXISTING);
    GgufException e = expect(Kind.FOREIGN_SHARD, mine.get(0), mine.get(1));
    assertTrue(e.getMessage().contains("one of 5 shards"), e.getMessage());

    // a first shard of another architecture
    restore(a, mine);
    SequencedMap<String, GgufValue> other = TinyHybridModel.metadata();
    other.put("general.architecture", GgufValue.string("llama"));
    other.put("general.name", GgufValue.string("someone else's"));
    List<Path> llama = GgufWriter.writeSplit(b, "x", 4, other, TinyHybridModel.tensors());
    Files.copy(llama.get(3), mine.get(3), StandardCopyOption.REPLACE_EXISTING);
    GgufModel ok = GgufReader.readModel(mine.get(0)); // split keys only: indistinguishable, fine
    assertEquals(4, ok.geometry().shardCount());
  }

  private static void restore(Path dir, List<Path> mine) throws IOException {
    for (Path p : mine) {
      Files.delete(p);
    }
    GgufWriter.writeSplit(dir, "m", 4, TinyHybridModel.metadata(), TinyHybridModel.tensors());
  }

  @Test
  void shardsOutOfOrderOrRenamed() throws IOException {
    List<Path> s =
        GgufWriter.writeSplit(dir, "m", 3, TinyHybridModel.metadata(), TinyHybridModel.tensors());
    Path tmp = dir.resolve("tmp");
    Files.move(s.get(1), tmp);
    Files.move(s.get(2), s.get(1));
    Files.move(tmp, s.get(2));
    GgufException e = expect(Kind.INCONSISTENT, s.get(0), s.get(1));
    assertTrue(e.getMessage().contains("named shard 2 but says it is shard 3"), e.getMessage());

    Path single = dir.resolve("model.gguf");
    Files.copy(s.get(0), single);
    expect(Kind.INCONSISTENT, single);
  }

  @Test
  void foldersAndPaths() throws IOException {
    Path empty = Files.createDirectory(dir.resolve("empty"));
    expect(Kind.NOT_A_MODEL, empty);
    Path two = Files.createDirectory(dir.resolve("two"));
    GgufWriter.write(two.resolve("a.gguf"), TinyHybridModel.metadata(), TinyHybridModel.tensors());
    GgufWriter.writeSplit(two, "b", 2, TinyHybridModel.metadata(), TinyHybridModel.tensors());
    GgufException e = expect(Kind.NOT_A_MODEL, two);
    assertTrue(e.getMessage().contains("2 models (a.gguf, b-00001-of-00002.gguf)"), e.getMessage());
    expect(Kind.NOT_FOUND, dir.resolve("nope.gguf"));
    expect(Kind.ABSURD_COUNT, file("m-00001-of-09999.gguf", TinyHybridModel.bytes()));
    expect(Kind.INCONSISTENT, file("m-00003-of-00002.gguf", TinyHybridModel.bytes()));
  }

  private Path variant(
      String name, Consumer<SequencedMap<String, GgufValue>> edit, List<GgufWriter.Tensor> tensors)
      throws IOException {
    SequencedMap<String, GgufValue> m = TinyHybridModel.metadata();
    edit.accept(m);
    Path p = dir.resolve(name);
    GgufWriter.write(p, m, tensors);
    return p;
  }

  @Test
  void geometryRules() throws IOException {
    List<GgufWriter.Tensor> t = TinyHybridModel.tensors();
    String a = TinyHybridModel.ARCH + ".";
    expect(
        Kind.INCONSISTENT,
        variant("interval.gguf", m -> m.put(a + "full_attention_interval", GgufValue.u32(3)), t));
    expect(
        Kind.INCONSISTENT,
        variant("experts.gguf", m -> m.put(a + "expert_count", GgufValue.u32(3)), t));
    expect(
        Kind.INCONSISTENT,
        variant("used.gguf", m -> m.put(a + "expert_used_count", GgufValue.u32(5)), t));
    expect(Kind.INCONSISTENT, variant("no-experts.gguf", m -> m.remove(a + "expert_count"), t));
    expect(
        Kind.INCONSISTENT,
        variant("blocks.gguf", m -> m.put(a + "block_count", GgufValue.u32(2)), t));
    expect(
        Kind.INCONSISTENT,
        variant("type.gguf", m -> m.put(a + "block_count", GgufValue.string("4")), t));
    expect(Kind.NOT_A_MODEL, variant("no-arch.gguf", m -> m.remove("general.architecture"), t));
    expect(Kind.NOT_A_MODEL, variant("no-blocks.gguf", m -> m.remove(a + "block_count"), t));
    expect(Kind.NOT_A_MODEL, variant("no-ctx.gguf", m -> m.remove(a + "context_length"), t));
    expect(
        Kind.ABSURD_COUNT,
        variant("huge-blocks.gguf", m -> m.put(a + "block_count", GgufValue.u32(1L << 31)), t));
    List<GgufWriter.Tensor> noUp =
        t.stream().filter(x -> !x.name().equals("blk.2.ffn_up_exps.weight")).toList();
    GgufException e = expect(Kind.INCONSISTENT, variant("no-up.gguf", m -> {}, noUp));
    assertTrue(e.getMessage().contains("blk.2.ffn_up_exps.weight"), e.getMessage());
  }

  @Test
  void perLayerKvHeadsAndDefaults() throws IOException {
    String a = TinyHybridModel.ARCH + ".";
    List<GgufWriter.Tensor> t = TinyHybridModel.tensors();
    // hybrid models give 0 KV heads to their non-attention layers
    List<GgufValue> perLayer =
        List.of(GgufValue.u32(0), GgufValue.u32(2), GgufValue.u32(0), GgufValue.u32(2));
    Path p =
        variant(
            "per-layer.gguf",
            m -> {
              m.put(a + "attention.head_count_kv", GgufValue.array(GgufValueType.UINT32, perLayer));
              m.remove(a + "attention.key_length");
              m.remove(a + "full_attention_interval");
            },
            t);
    ModelGeometry g = GgufReader.readModel(p).geometry();
    assertEquals(2, g.kvHeads());
    assertEquals(16, g.headDim(), "embedding_length / head_count when key_length is absent");
    assertEquals(List.of(1, 3), g.qsaLayers(), "from the attn_k tensors alone");

    List<GgufValue> uneven =
        List.of(GgufValue.u32(0), GgufValue.u32(2), GgufValue.u32(0), GgufValue.u32(4));
    expect(
        Kind.INCONSISTENT,
        variant(
            "uneven.gguf",
            m ->
                m.put(a + "attention.head_count_kv", GgufValue.array(GgufValueType.UINT32, uneven)),
            t));
  }
}
