package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Locale;
import org.junit.jupiter.api.Test;

/** Shard file names as llama.cpp's gguf-split writes them ({@code "%s-%05d-of-%05d.gguf"}). */
class ShardNameTest {
  @Test
  void formatPadsToFiveDigitsAsLlamaCpp() {
    assertEquals("m-00001-of-00004.gguf", ShardName.format("m", 1, 4));
    for (int k : new int[] {1, 9, 10, 99, 100, 9_999, 10_000, 99_999, 100_000, 1_234_567}) {
      assertEquals(
          String.format(Locale.ROOT, "%s-%05d-of-%05d.gguf", "a-b", k, k),
          ShardName.format("a-b", k, k));
    }
  }

  @Test
  void parseReadsWhatFormatWrites() {
    ShardName n = ShardName.parse(ShardName.format("Qwen3-235B", 3, 12));
    assertEquals(new ShardName("Qwen3-235B", 3, 12), n);
    assertEquals("Qwen3-235B-00007-of-00012.gguf", n.fileName(7));
    assertNull(ShardName.parse("model.gguf"));
  }
}
