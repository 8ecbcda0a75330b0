package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.model.GgufException.Kind;
import dev.strata.testsupport.SharedData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The headers of two GGUF files written by llama.cpp's own converter (../shared/data/gguf beside
 * the checkout; skipped when absent, never copied into the project), read field by field against
 * the published configs of the models they came from: Llama 2 7B
 * (huggingface.co/meta-llama/Llama-2-7b-hf config.json: hidden_size 4096, num_hidden_layers 32,
 * intermediate_size 11008, num_attention_heads 32, num_key_value_heads 32, max_position_embeddings
 * 4096, rms_norm_eps 1e-05, vocab_size 32000) and GPT-NeoX-20B
 * (huggingface.co/EleutherAI/gpt-neox-20b config.json: hidden_size 6144, num_hidden_layers 44,
 * intermediate_size 24576, num_attention_heads 64, max_position_embeddings 2048, rotary_pct 0.25,
 * use_parallel_residual true, layer_norm_eps 1e-05, vocab_size 50432). Their token lists (string
 * arrays) and scores/types (f32/i32 arrays) are longer than the reader keeps, so every key after
 * them is read only if the skipping steps over exactly their bytes.
 */
class RealVocabHeaderTest {
  private static Path data(String name) {
    Optional<Path> dir = SharedData.resolve("gguf").filter(Files::isDirectory);
    Assumptions.assumeTrue(dir.isPresent(), SharedData.WHY_NOT);
    return dir.get().resolve(name);
  }

  private static long arrayLength(GgufFile f, String key, GgufValueType type) {
    GgufValue.ArrayValue a = (GgufValue.ArrayValue) f.get(key);
    assertEquals(type, a.elementType(), key);
    assertFalse(a.complete(), key + " is longer than the reader keeps");
    return a.length();
  }

  /**
   * The shared vocabulary file {@code name}: GGUF v3, no tensors, 17 keys, and the architecture's
   * context length, embedding length, block count and feed-forward length as given.
   */
  private static GgufFile vocabHeader(
      String name, String arch, long ctx, long width, long blocks, long ffn) {
    GgufFile f = GgufReader.readFile(data(name));
    assertEquals(3, f.version());
    assertEquals(0, f.tensors().size());
    assertEquals(17, f.metadata().size());
    assertEquals(arch, f.string("general.architecture"));
    assertEquals(ctx, f.unsigned(arch + ".context_length"));
    assertEquals(width, f.unsigned(arch + ".embedding_length"));
    assertEquals(blocks, f.unsigned(arch + ".block_count"));
    assertEquals(ffn, f.unsigned(arch + ".feed_forward_length"));
    return f;
  }

  @Test
  void llama2VocabularyHeaderMatchesItsPublishedConfig() {
    GgufFile f = vocabHeader("ggml-vocab-llama.gguf", "llama", 4096, 4096, 32, 11008);
    assertEquals(4096 / 32, f.unsigned("llama.rope.dimension_count"));
    assertEquals(32, f.unsigned("llama.attention.head_count"));
    assertEquals(32, f.unsigned("llama.attention.head_count_kv"));
    GgufValue.FloatValue eps =
        (GgufValue.FloatValue) f.get("llama.attention.layer_norm_rms_epsilon");
    assertEquals(GgufValueType.FLOAT32, eps.type());
    assertEquals(1e-5f, (float) eps.value());
    assertEquals("llama", f.string("tokenizer.ggml.model"));
    assertEquals(32000, arrayLength(f, "tokenizer.ggml.tokens", GgufValueType.STRING));
    assertEquals(32000, arrayLength(f, "tokenizer.ggml.scores", GgufValueType.FLOAT32));
    assertEquals(32000, arrayLength(f, "tokenizer.ggml.token_type", GgufValueType.INT32));
    // SentencePiece's ids: <unk> 0, <s> 1, </s> 2 (read after the three skipped arrays)
    assertEquals(1, f.unsigned("tokenizer.ggml.bos_token_id"));
    assertEquals(2, f.unsigned("tokenizer.ggml.eos_token_id"));
    assertEquals(0, f.unsigned("tokenizer.ggml.unknown_token_id"));
  }

  @Test
  void gptNeoxVocabularyHeaderMatchesItsPublishedConfig() {
    GgufFile f = vocabHeader("ggml-vocab-gpt-neox.gguf", "gptneox", 2048, 6144, 44, 24576);
    assertEquals(64, f.unsigned("gptneox.attention.head_count"));
    // rotary_pct 0.25 of head_dim 6144 / 64
    assertEquals(6144 / 64 / 4, f.unsigned("gptneox.rope.dimension_count"));
    assertEquals(
        new GgufValue.IntValue(GgufValueType.BOOL, 1), f.get("gptneox.use_parallel_residual"));
    assertEquals(50432, arrayLength(f, "tokenizer.ggml.tokens", GgufValueType.STRING));
    assertEquals(50432, arrayLength(f, "tokenizer.ggml.token_type", GgufValueType.INT32));
    assertEquals("gpt2", f.string("tokenizer.ggml.model"));
    // <|endoftext|> is token 0 and serves as bos, eos and unk
    assertEquals(0, f.unsigned("tokenizer.ggml.bos_token_id"));
    assertEquals(0, f.unsigned("tokenizer.ggml.unknown_token_id"));
  }

  @Test
  void theRealFileCutBeforeItsLastByteNamesItsLastKey() throws IOException {
    byte[] b = Files.readAllBytes(data("ggml-vocab-llama.gguf"));
    int cut = b.length - 1;
    GgufException e =
        assertThrows(
            GgufException.class,
            () -> GgufReader.read(new ByteArrayChannel(b, cut), "ggml-vocab-llama.gguf"));
    assertEquals(Kind.TRUNCATED, e.kind());
    // the last entry is tokenizer.ggml.unknown_token_id, a u32: the file ends one byte short
    assertEquals(
        "ggml-vocab-llama.gguf: ends at byte "
            + cut
            + " inside tokenizer.ggml.unknown_token_id (needs 1 more bytes): the file is"
            + " truncated; download it again",
        e.getMessage());
  }
}
