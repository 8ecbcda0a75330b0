package dev.strata.setup;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.GgufReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code strata-setup demo-model} as a user runs it: output, exit codes, files on disk. */
class DemoModelCommandTest {
  @TempDir Path dir;

  private static CliHarness.Run run(String... args) {
    return CliHarness.system(Map.of(), false, args);
  }

  @Test
  void mtpAddsTheDrafterBlockAndKeepsTheMainModel() {
    Path target = dir.resolve("mtp");
    CliHarness.Run r = run("demo-model", "--out", target.toString(), "--shards", "2", "--mtp");
    assertEquals(0, r.code(), r.err());
    GgufModel model = GgufReader.readModel(target.resolve("strata-demo-00001-of-00002.gguf"));
    assertEquals(48, model.geometry().blocks());
    assertEquals(12, model.geometry().qsaLayerCount());
    assertEquals(1, model.geometry().drafterBlocks());
    assertEquals(java.util.List.of(48), model.geometry().drafterKvLayers());
    assertTrue(r.out().contains("MTP drafter: 1 block(s)"), r.out());
  }

  @Test
  void writesTheShardsAndPrintsPathsAndGeometry() {
    Path target = dir.resolve("new/models");
    CliHarness.Run r = run("demo-model", "--out", target.toString(), "--shards", "3");
    assertEquals(0, r.code(), r.err());
    Path first = target.resolve("strata-demo-00001-of-00003.gguf");
    assertEquals(2, r.out().lines().count(), r.out());
    assertTrue(
        r.out()
            .startsWith(
                "wrote "
                    + first
                    + " … strata-demo-00003-of-00003.gguf (3 shards: 21.04 GiB apparent, "),
        r.out());
    // sparse files: what they take on disk is said beside their length, in the same binary units
    assertTrue(
        r.out().lines().findFirst().orElseThrow().matches(".* KiB allocated \\(sparse files\\)\\)"),
        r.out());
    assertTrue(
        r.out()
            .contains(
                "qwen3next: 48 blocks, 12 QSA layers [3, 7, 11, …, 47], 2 KV heads × head_dim 256, 36"
                    + " recurrent layers (state 2,195,456 B each), 512 experts (10 per token) in 48"
                    + " layers, expert slot 811,008 B"),
        r.out());
    assertFalse(r.out().contains("MTP"), "the default demo has no MTP block");
    GgufModel model = GgufReader.readModel(first);
    assertEquals(3, model.shards().size());
    assertEquals(12, model.geometry().qsaLayerCount());
  }

  @Test
  void defaultIsFourShards() {
    CliHarness.Run r = run("demo-model", "--out", dir.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(Files.isRegularFile(dir.resolve("strata-demo-00004-of-00004.gguf")));
  }

  @Test
  void shardCountOutsideOneToSixtyFourIsAUsageError() {
    for (String n : new String[] {"0", "65", "-3", "many"}) {
      CliHarness.Run r = run("demo-model", "--out", dir.toString(), "--shards", n);
      assertEquals(2, r.code(), n);
      assertTrue(r.err().startsWith("strata-setup: "), r.err());
      assertTrue(r.err().contains("--shards"), r.err());
    }
    try (var files = Files.list(dir)) {
      assertEquals(0, files.count(), "nothing written");
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void missingOutIsAUsageError() {
    CliHarness.Run r = run("demo-model");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--out"), r.err());
  }

  @Test
  void refusesToOverwriteAForeignFile() throws IOException {
    Path mine = dir.resolve("strata-demo-00001-of-00001.gguf");
    Files.writeString(mine, "not a model");
    CliHarness.Run r = run("demo-model", "--out", dir.toString(), "--shards", "1");
    assertEquals(2, r.code());
    assertTrue(r.err().contains(mine.toString()), r.err());
    assertEquals(1, r.err().lines().count(), r.err());
    assertArrayEquals("not a model".getBytes(), Files.readAllBytes(mine));
  }

  @Test
  void outThatIsAFileIsAUsageError() throws IOException {
    Path file = Files.writeString(dir.resolve("f"), "x");
    CliHarness.Run r = run("demo-model", "--out", file.toString());
    assertEquals(2, r.code());
    assertTrue(r.err().contains("is a file, not a folder"), r.err());
    assertFalse(r.err().contains("Exception"), r.err());
  }
}
