package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test/demo GGUF writer at its edges: a stale {@code .partial} from a crashed run never leaks
 * into the data, a tensor of ggml's 4 dimensions is written and 5 is refused, and the split
 * partition at its bounds (as many shards as tensors, 65,535 shards, zero-byte tensors, a heavy
 * last tensor).
 */
class GgufWriterEdgesTest {
  @TempDir Path dir;

  @Test
  void aStalePartialFileFromACrashedRunLeavesNoByteInTheNewFile() throws IOException {
    Path model = dir.resolve("m.gguf");
    byte[] junk = new byte[1 << 20];
    Arrays.fill(junk, (byte) 0xFF);
    Files.write(dir.resolve("m.gguf.partial"), junk);
    GgufWriter.write(model, TinyHybridModel.metadata(), TinyHybridModel.tensors());
    byte[] written = Files.readAllBytes(model);
    assertEquals(TinyHybridModel.bytes().length, written.length);
    assertArrayEquals(
        TinyHybridModel.bytes(), written, "header, then zeros: nothing of the stale file");
    assertEquals(List.of("m.gguf"), names());
  }

  private List<String> names() throws IOException {
    try (var s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void aTensorOfFourDimensionsIsWrittenAndFiveIsRefused() {
    assertEquals(4, GgufWriter.Tensor.of("t", GgmlType.F32, 2, 3, 4, 5).dims().size());
    assertEquals(2 * 3 * 4 * 5 * 4, GgufWriter.Tensor.of("t", GgmlType.F32, 2, 3, 4, 5).bytes());
    assertThrows(
        IllegalArgumentException.class,
        () -> GgufWriter.Tensor.of("t", GgmlType.F32, 1, 1, 1, 1, 1));
  }

  private static List<GgufWriter.Tensor> f32(long... elements) {
    List<GgufWriter.Tensor> l = new ArrayList<>();
    for (int i = 0; i < elements.length; i++) {
      l.add(GgufWriter.Tensor.of("t" + i, GgmlType.F32, elements[i]));
    }
    return l;
  }

  private static List<List<String>> cut(List<GgufWriter.Tensor> t, int shards) {
    return GgufWriter.partition(t, shards).stream()
        .map(p -> p.stream().map(GgufWriter.Tensor::name).toList())
        .toList();
  }

  @Test
  void asManyShardsAsTensorsGiveOneEachAndOneMoreIsRefused() {
    List<GgufWriter.Tensor> t = f32(1, 1, 1);
    assertEquals(List.of(List.of("t0"), List.of("t1"), List.of("t2")), cut(t, 3));
    assertThrows(IllegalArgumentException.class, () -> GgufWriter.partition(t, 4));
    assertThrows(IllegalArgumentException.class, () -> GgufWriter.partition(t, 0));
    // no tensors: one empty shard
    assertEquals(List.of(List.of()), cut(List.of(), 1));
  }

  @Test
  void splitCountsUpTo65535AreCutAnd65536IsRefused() {
    long[] ones = new long[65_536];
    Arrays.fill(ones, 1);
    List<GgufWriter.Tensor> t = f32(ones);
    List<List<GgufWriter.Tensor>> parts = GgufWriter.partition(t, 65_535);
    assertEquals(65_535, parts.size());
    // equal sizes: the first shard takes two, every later one one
    assertEquals(2, parts.getFirst().size());
    assertEquals(1, parts.getLast().size());
    assertThrows(IllegalArgumentException.class, () -> GgufWriter.partition(t, 65_536));
  }

  @Test
  void theCutFollowsTheBytesAndKeepsEveryShardNonEmpty() {
    // equal sizes: the cut falls where half the bytes are done
    assertEquals(List.of(List.of("t0", "t1"), List.of("t2", "t3")), cut(f32(10, 10, 10, 10), 2));
    // one heavy last tensor: the light ones fill the other shards one each at the end
    assertEquals(
        List.of(List.of("t0", "t1", "t2", "t3", "t4"), List.of("t5"), List.of("t6"), List.of("t7")),
        cut(f32(1, 1, 1, 1, 1, 1, 1, 1000), 4));
    // a zero-byte tensor after the last cut stays in the last shard
    assertEquals(List.of(List.of("t0"), List.of("t1", "t2")), cut(f32(10, 10, 0), 2));
  }
}
