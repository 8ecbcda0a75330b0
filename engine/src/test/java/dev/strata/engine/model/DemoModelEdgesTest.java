package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo model's edges: 64 shards (its limit) written and read back, a file given as the folder
 * refused in words, and which files count as demo shards (only those the demo would write: its
 * tensors with their shapes, or its name).
 */
class DemoModelEdgesTest {
  @TempDir Path dir;

  @Test
  void sixtyFourShardsAreWrittenAndReadBack() throws IOException {
    List<Path> paths = DemoModel.write(dir.resolve("demo"), 64);
    assertEquals(64, paths.size());
    assertEquals(64, GgufReader.readModel(paths.getFirst()).geometry().shardCount());
    StrataException e =
        assertThrows(StrataException.class, () -> DemoModel.write(dir.resolve("demo"), 65));
    assertEquals("--shards must be 1..64 (got 65)", e.getMessage());
  }

  @Test
  void aFileGivenAsTheFolderIsRefusedInWords() throws IOException {
    Path file = Files.writeString(dir.resolve("notes.txt"), "mine");
    StrataException e = assertThrows(StrataException.class, () -> DemoModel.write(file, 1));
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertEquals(
        file + " is a file, not a folder; pass a folder for the demo model", e.getMessage());
    assertEquals("mine", Files.readString(file));
  }

  private Path gguf(String name, SequencedMap<String, GgufValue> m, List<GgufWriter.Tensor> t)
      throws IOException {
    Path p = dir.resolve(name);
    GgufWriter.write(p, m, t);
    return p;
  }

  @Test
  void onlyFilesTheDemoWouldWriteAreDemoShards() throws IOException {
    assertFalse(DemoModel.isDemoShard(dir), "a folder");
    assertFalse(DemoModel.isDemoShard(dir.resolve("absent.gguf")), "no file");
    // no tensors: a demo shard only under the demo's name
    assertFalse(DemoModel.isDemoShard(gguf("empty.gguf", new LinkedHashMap<>(), List.of())));
    SequencedMap<String, GgufValue> named = new LinkedHashMap<>();
    named.put("general.name", GgufValue.string(DemoModel.NAME));
    assertTrue(DemoModel.isDemoShard(gguf("named.gguf", named, List.of())));
    // a demo tensor's name with another shape
    GgufWriter.Tensor first = DemoModel.tensors().getFirst();
    List<Long> dims = new java.util.ArrayList<>(first.dims());
    dims.set(dims.size() - 1, dims.getLast() + 1);
    GgufWriter.Tensor reshaped = new GgufWriter.Tensor(first.name(), first.type(), dims);
    assertFalse(
        DemoModel.isDemoShard(gguf("reshaped.gguf", new LinkedHashMap<>(), List.of(reshaped))));
    assertTrue(DemoModel.isDemoShard(gguf("same.gguf", new LinkedHashMap<>(), List.of(first))));
  }
}
