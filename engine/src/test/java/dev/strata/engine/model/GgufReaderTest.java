package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What GgufWriter writes, GgufReader reads back: values, tensors, split sets, geometry. */
class GgufReaderTest {
  @TempDir Path dir;

  @Test
  void everyValueTypeRoundTrips() throws IOException {
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("u8", GgufValue.u8(255));
    m.put("i8", GgufValue.i8(-128));
    m.put("u16", GgufValue.u16(65535));
    m.put("i16", GgufValue.i16(-32768));
    m.put("u32", GgufValue.u32(0xFFFF_FFFFL));
    m.put("i32", GgufValue.i32(Integer.MIN_VALUE));
    m.put("u64", GgufValue.u64(-1L)); // 2^64 - 1
    m.put("i64", GgufValue.i64(Long.MIN_VALUE));
    m.put("f32", GgufValue.f32(1.5f));
    m.put("f64", GgufValue.f64(-2.25));
    m.put("bool", GgufValue.bool(true));
    m.put("string", GgufValue.string("héllo ✓"));
    m.put("empty", GgufValue.array(GgufValueType.INT32, List.of()));
    m.put("strings", GgufValue.strings(List.of("a", "", "ccc")));
    m.put(
        "ints", GgufValue.array(GgufValueType.UINT16, List.of(GgufValue.u16(1), GgufValue.u16(2))));
    Path f = dir.resolve("values.gguf");
    GgufWriter.write(f, m, List.of(GgufWriter.Tensor.of("t", GgmlType.F32, 3)));

    GgufFile read = GgufReader.readFile(f);
    assertEquals(m, read.metadata());
    assertEquals(List.copyOf(m.keySet()), List.copyOf(read.metadata().keySet()), "file order");
    assertEquals(3, read.version());
    assertFalse(((GgufValue.IntValue) read.get("u64")).fitsLong());
    assertEquals(1, read.tensors().size());
    assertEquals(12, read.tensors().getFirst().bytes());
  }

  @Test
  void longArraysAreSkippedButCounted() throws IOException {
    int n = GgufReader.KEEP_ARRAY + 1;
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put(
        "tokenizer.ggml.tokens",
        GgufValue.strings(IntStream.range(0, n).mapToObj(i -> "tok" + i).toList()));
    m.put("after", GgufValue.u32(7));
    Path f = dir.resolve("vocab.gguf");
    GgufWriter.write(f, m, List.of());

    GgufFile read = GgufReader.readFile(f);
    GgufValue.ArrayValue tokens = (GgufValue.ArrayValue) read.get("tokenizer.ggml.tokens");
    assertEquals(n, tokens.length());
    assertTrue(tokens.elements().isEmpty());
    assertFalse(tokens.complete());
    assertEquals(7, read.unsigned("after"), "the entry after the skipped array is read right");
  }

  @Test
  void manyShortArraysAreKeptOnlyUpToTheBudget() throws IOException {
    List<GgufValue> bytes =
        IntStream.range(0, GgufReader.KEEP_ARRAY)
            .mapToObj(i -> (GgufValue) GgufValue.u8(i & 0xFF))
            .toList();
    GgufValue.ArrayValue array = GgufValue.array(GgufValueType.UINT8, bytes);
    int fit = (int) (GgufReader.MAX_KEPT_ELEMENTS / GgufReader.KEEP_ARRAY);
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    for (int i = 0; i <= fit; i++) {
      m.put("a" + i, array);
    }
    Path f = dir.resolve("arrays.gguf");
    GgufWriter.write(f, m, List.of());
    GgufFile read = GgufReader.readFile(f);
    assertEquals(array, read.get("a" + (fit - 1)));
    GgufValue.ArrayValue over = (GgufValue.ArrayValue) read.get("a" + fit);
    assertFalse(over.complete());
    assertEquals(GgufReader.KEEP_ARRAY, over.length());
  }

  @Test
  void tinyModelGeometry() throws IOException {
    Path f = dir.resolve("tiny.gguf");
    GgufWriter.write(f, TinyHybridModel.metadata(), TinyHybridModel.tensors());
    GgufModel model = GgufReader.readModel(f);
    ModelGeometry g = model.geometry();
    assertEquals("tiny", g.architecture());
    assertEquals(4, g.blocks());
    assertEquals(List.of(1, 3), g.qsaLayers());
    assertEquals(2, g.kvHeads());
    assertEquals(64, g.headDim());
    assertEquals(2, g.experts());
    assertEquals(1, g.expertsUsed());
    assertEquals(4, g.moeLayers());
    assertEquals(TinyHybridModel.slotBytes(), g.expertBytes());
    assertEquals(4096, g.trainedContext());
    assertEquals(1, g.shardCount());
    long all = TinyHybridModel.tensors().stream().mapToLong(GgufWriter.Tensor::bytes).sum();
    assertEquals(all, model.tensorBytes());
    assertEquals(all - g.denseBytes(), g.allExpertBytes(), "every expert tensor is in the slots");
    assertEquals(List.of(f), model.shards().stream().map(GgufModel.Shard::path).toList());
    assertEquals(Files.size(f), model.fileBytes());
  }

  @Test
  void versionTwoIsReadLikeThree() throws IOException {
    byte[] b = TinyHybridModel.bytes();
    b[4] = 2;
    Path f = dir.resolve("v2.gguf");
    Files.write(f, b);
    assertEquals(2, GgufReader.readFile(f).version());
    assertEquals(List.of(1, 3), GgufReader.readModel(f).geometry().qsaLayers());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 4})
  void demoSplitSetReadsBackTheSeedGeometry(int shards) throws IOException {
    List<Path> paths = DemoModel.write(dir, shards);
    assertEquals(shards, paths.size());
    assertEquals(
        "strata-demo-00001-of-0000" + shards + ".gguf", paths.getFirst().getFileName().toString());

    GgufModel model = GgufReader.readModel(paths.getFirst());
    DemoModelTest.assertSeedGeometry(model.geometry());
    assertEquals(shards, model.geometry().shardCount());
    assertEquals(paths, model.shards().stream().map(GgufModel.Shard::path).toList());
    assertEquals(
        DemoModel.tensors().size(),
        model.shards().stream().mapToInt(GgufModel.Shard::tensors).sum());
    // the same model from the folder, and from its last shard
    assertEquals(model, GgufReader.readModel(dir));
    assertEquals(model, GgufReader.readModel(paths.getLast()));
  }

  @Test
  void splitWritesMetadataOnlyIntoTheFirstShard() throws IOException {
    List<Path> paths =
        GgufWriter.writeSplit(dir, "m", 3, TinyHybridModel.metadata(), TinyHybridModel.tensors());
    GgufFile first = GgufReader.readFile(paths.get(0));
    GgufFile second = GgufReader.readFile(paths.get(1));
    assertEquals("tiny", first.string("general.architecture"));
    assertEquals(
        List.of("split.no", "split.count", "split.tensors.count"),
        List.copyOf(second.metadata().keySet()));
    assertEquals(1, second.unsigned("split.no"));
    assertEquals(GgufValueType.UINT16, second.get("split.count").type());
    assertEquals(GgufValueType.INT32, second.get("split.tensors.count").type());
    assertEquals(TinyHybridModel.tensors().size(), second.unsigned("split.tensors.count"));
    GgufModel model = GgufReader.readModel(paths.get(0));
    assertEquals(List.of(1, 3), model.geometry().qsaLayers());
    assertEquals(TinyHybridModel.slotBytes(), model.geometry().expertBytes());
  }

  @Test
  void partitionIsContiguousNonEmptyAndBalanced() {
    List<GgufWriter.Tensor> tensors = DemoModel.tensors();
    for (int n : new int[] {1, 2, 4, 7, 64}) {
      List<List<GgufWriter.Tensor>> parts = GgufWriter.partition(tensors, n);
      assertEquals(n, parts.size());
      assertEquals(tensors, parts.stream().flatMap(List::stream).toList());
      assertTrue(parts.stream().noneMatch(List::isEmpty));
    }
    // four shards of a 22.6 GB model: none over a third of it
    long total = tensors.stream().mapToLong(GgufWriter.Tensor::bytes).sum();
    for (List<GgufWriter.Tensor> p : GgufWriter.partition(tensors, 4)) {
      assertTrue(p.stream().mapToLong(GgufWriter.Tensor::bytes).sum() < total / 3);
    }
  }

  @Test
  void ggmlTypeTable() {
    assertEquals(66, GgmlType.TQ2_0.bytes(List.of(256L)));
    assertEquals(34 * 64, GgmlType.Q8_0.bytes(List.of(64L, 32L)));
    assertEquals(18, GgmlType.Q2_0.bytes(List.of(64L)));
    assertEquals(GgmlType.MXFP4, GgmlType.fromId(39));
    assertEquals(null, GgmlType.fromId(31));
    assertTrue(GgmlType.isRemovedId(31));
    assertFalse(GgmlType.isRemovedId(99));
    for (GgmlType t : GgmlType.values()) {
      assertEquals(t, GgmlType.fromId(t.id()));
    }
  }
}
