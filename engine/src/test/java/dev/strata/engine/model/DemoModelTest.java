package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo model has the seed's geometry, and writing it never destroys a user's file. */
class DemoModelTest {
  /** One expert of one layer: (2 × 2048×512 + 512×2048) TQ2_0 weights at 66 B per 256. */
  static final long SLOT_BYTES = 811_008L;

  /** Every tensor but the experts (Q8_0 matrices, F32 norms and router), by hand. */
  static final long DENSE_BYTES = 2_665_016_320L;

  /** 48 layers × 512 experts × slot + dense. */
  static final long TOTAL_BYTES = 22_596_348_928L;

  @TempDir Path dir;

  static void assertSeedGeometry(ModelGeometry g) {
    assertEquals("qwen3next", g.architecture());
    assertEquals(48, g.blocks());
    assertEquals(IntStream.iterate(3, n -> n < 48, n -> n + 4).boxed().toList(), g.qsaLayers());
    assertEquals(12, g.qsaLayerCount());
    assertEquals(2, g.kvHeads());
    assertEquals(256, g.headDim());
    assertEquals(512, g.experts());
    assertEquals(10, g.expertsUsed());
    assertEquals(48, g.moeLayers());
    assertEquals(SLOT_BYTES, g.expertBytes());
    assertEquals(DENSE_BYTES, g.denseBytes());
    assertEquals(262_144, g.trainedContext());
  }

  @Test
  void sizesOnPaper() {
    long total = DemoModel.tensors().stream().mapToLong(GgufWriter.Tensor::bytes).sum();
    assertEquals(TOTAL_BYTES, total);
    assertEquals(TOTAL_BYTES, DENSE_BYTES + 48L * 512 * SLOT_BYTES);
  }

  @Test
  void writtenModelIsRecognisedAndSparse() throws IOException {
    List<Path> paths = DemoModel.write(dir, 2);
    GgufModel model = GgufReader.readModel(paths.getFirst());
    assertSeedGeometry(model.geometry());
    assertEquals(TOTAL_BYTES, model.tensorBytes());
    assertTrue(model.fileBytes() > TOTAL_BYTES, "the files are as long as the data on paper");
    for (Path p : paths) {
      assertTrue(DemoModel.isDemoShard(p));
    }
    String summary = model.summary();
    assertTrue(summary.contains("12 QSA layers [3, 7, 11, …, 47]"), summary);
    assertTrue(summary.contains("expert slot 811,008 B"), summary);
  }

  @Test
  void rewritingWithAnotherShardCountReplacesTheOldShards() throws IOException {
    DemoModel.write(dir, 4);
    List<Path> paths = DemoModel.write(dir, 2);
    try (var files = Files.list(dir)) {
      assertEquals(
          paths.stream().map(p -> p.getFileName().toString()).sorted().toList(),
          files.map(p -> p.getFileName().toString()).sorted().toList());
    }
    assertEquals(2, GgufReader.readModel(dir).geometry().shardCount());
  }

  @Test
  void refusesToOverwriteAFileThatIsNotADemoShard() throws IOException {
    Path mine = dir.resolve("strata-demo-00001-of-00002.gguf");
    byte[] precious = "my notes, not a model".getBytes();
    Files.write(mine, precious);
    StrataException e = assertThrows(StrataException.class, () -> DemoModel.write(dir, 2));
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertTrue(e.getMessage().contains(mine.toString()), e.getMessage());
    assertArrayEquals(precious, Files.readAllBytes(mine));
    assertFalse(Files.exists(dir.resolve("strata-demo-00002-of-00002.gguf")));
  }

  @Test
  void refusesAnotherModelUnderTheDemoName() throws IOException {
    Path other = dir.resolve("strata-demo-00001-of-00001.gguf");
    GgufWriter.write(other, TinyHybridModel.metadata(), TinyHybridModel.tensors());
    assertFalse(DemoModel.isDemoShard(other));
    assertThrows(StrataException.class, () -> DemoModel.write(dir, 1));
    assertEquals("tiny", GgufReader.readFile(other).string("general.architecture"));
  }

  @Test
  void shardCountIsBounded() {
    for (int n : new int[] {0, -1, 65}) {
      StrataException e = assertThrows(StrataException.class, () -> DemoModel.write(dir, n));
      assertEquals(ExitCodes.USAGE, e.exitCode());
    }
  }

  @org.junit.jupiter.api.Test
  void aWriteThatFailsLeavesNoPartialFileBehind(@org.junit.jupiter.api.io.TempDir Path d)
      throws java.io.IOException {
    // the rename at the end cannot replace a non-empty folder: the write fails after the
    // .partial was written, as a full disk would make it fail half-way
    Path model = java.nio.file.Files.createDirectories(d.resolve("model"));
    Path inTheWay = model.resolve(DemoModel.PREFIX + "-00001-of-00004.gguf");
    java.nio.file.Files.createDirectories(inTheWay.resolve("occupied"));
    org.junit.jupiter.api.Assertions.assertThrows(
        java.io.IOException.class,
        () ->
            GgufWriter.writeSplit(
                model, DemoModel.PREFIX, 4, DemoModel.metadata(), DemoModel.tensors()));
    try (java.util.stream.Stream<Path> s = java.nio.file.Files.list(model)) {
      org.junit.jupiter.api.Assertions.assertEquals(
          java.util.List.of(),
          s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".partial")).toList());
    }
  }
}
