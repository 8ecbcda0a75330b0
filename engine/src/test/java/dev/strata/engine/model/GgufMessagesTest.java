package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.model.GgufException.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files that are not broken but packaged another way get a message that points at the fix, never
 * "download again": byte-split parts, the early split keys, long chat templates.
 */
class GgufMessagesTest {
  @TempDir Path dir;

  private static GgufException refused(Path p) {
    GgufException e = assertThrows(GgufException.class, () -> GgufReader.readModel(p));
    assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    assertFalse(e.getMessage().contains("download"), e.getMessage());
    return e;
  }

  @Test
  void byteSplitPartsAreJoinedNotDownloadedAgain() throws IOException {
    byte[] whole = TinyHybridModel.bytes();
    int half = whole.length / 2;
    Path p1 = dir.resolve("tiny.gguf.part1of2");
    Path p2 = dir.resolve("tiny.gguf.part2of2");
    Files.write(p1, Arrays.copyOfRange(whole, 0, half));
    Files.write(p2, Arrays.copyOfRange(whole, half, whole.length));
    GgufException e = refused(p1);
    assertEquals(Kind.NOT_A_MODEL, e.kind());
    assertTrue(e.getMessage().startsWith(p1 + ": is one of 2 byte-split parts of tiny.gguf"));
    assertTrue(e.getMessage().contains("> tiny.gguf) and pass the joined file"), e.getMessage());
    // the whole file's name, not yet joined
    e = refused(dir.resolve("tiny.gguf"));
    assertTrue(
        e.getMessage().contains("no such file, but its 2 byte-split parts are here; join them"),
        e.getMessage());
    // the folder
    e = refused(dir);
    assertTrue(e.getMessage().contains("byte-split parts of tiny.gguf"), e.getMessage());
    // joined, it reads
    Files.write(dir.resolve("tiny.gguf"), whole);
    assertEquals(
        TinyHybridModel.ARCH,
        GgufReader.readModel(dir.resolve("tiny.gguf")).geometry().architecture());
  }

  @Test
  void earlySplitKeysSayHowToResplit() throws IOException {
    Path p =
        TinyHybridModel.writeWith(
            dir.resolve("old-split.gguf"),
            Map.entry("general.split.count", GgufValue.u16(2)),
            Map.entry("general.split.no", GgufValue.u16(0)));
    GgufException e = refused(p);
    assertTrue(e.getMessage().contains("old split key general.split."), e.getMessage());
    assertTrue(e.getMessage().contains("gguf-split"), e.getMessage());
  }

  /**
   * Issue 28: the first gguf-split's keys ({@code general.split}, {@code general.split_count}) in a
   * set named as gguf-split names shards: re-split, not "download shard 1 again" (the same file).
   */
  @Test
  void theFirstGgufSplitsKeysSayReSplitNotDownloadAgain() throws IOException {
    List<GgufWriter.Tensor> tensors = TinyHybridModel.tensors();
    for (int k = 0; k < 2; k++) {
      SequencedMap<String, GgufValue> m =
          k == 0 ? TinyHybridModel.metadata() : new java.util.LinkedHashMap<>();
      m.put("general.split", GgufValue.u16(k));
      m.put("general.split_count", GgufValue.u16(2));
      Files.write(
          dir.resolve(ShardName.format("first", k + 1, 2)),
          GgufWriter.toBytes(m, k == 0 ? tensors.subList(0, 1) : tensors.subList(1, 2)));
    }
    GgufException e = refused(dir.resolve(ShardName.format("first", 1, 2)));
    assertTrue(
        e.getMessage().contains("carries the old split key general.split ("), e.getMessage());
    assertTrue(e.getMessage().contains("re-split the merged file"), e.getMessage());
    assertTrue(!e.getMessage().contains("download shard"), e.getMessage());
  }

  @Test
  void aChatTemplateOfOneAndAHalfMebibytesReads() throws IOException {
    SequencedMap<String, GgufValue> m = TinyHybridModel.metadata();
    m.put("tokenizer.chat_template", GgufValue.string("x".repeat(1_572_864)));
    Path p = dir.resolve("long-template.gguf");
    Files.write(p, GgufWriter.toBytes(m, TinyHybridModel.tensors()));
    assertEquals(4, GgufReader.readModel(p).geometry().blocks());
  }
}
