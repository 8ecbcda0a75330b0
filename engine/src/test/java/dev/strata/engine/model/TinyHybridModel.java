package dev.strata.engine.model;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/**
 * A small hybrid MoE for tests: 4 blocks, attention in blocks 1 and 3 (interval 2), 2 KV heads of
 * 64, 2 experts (1 used) of FFN 32 in Q8_0. Small enough to live in memory.
 */
final class TinyHybridModel {
  static final String ARCH = "tiny";
  static final int BLOCKS = 4;
  static final int WIDTH = 64;
  static final int EXPERTS = 2;
  static final int FFN = 32;

  private TinyHybridModel() {}

  static SequencedMap<String, GgufValue> metadata() {
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("general.architecture", GgufValue.string(ARCH));
    m.put("general.name", GgufValue.string("tiny test model"));
    m.put(ARCH + ".block_count", GgufValue.u32(BLOCKS));
    m.put(ARCH + ".context_length", GgufValue.u64(4096));
    m.put(ARCH + ".embedding_length", GgufValue.u32(WIDTH));
    m.put(ARCH + ".attention.head_count", GgufValue.u32(4));
    m.put(ARCH + ".attention.head_count_kv", GgufValue.u32(2));
    m.put(ARCH + ".attention.key_length", GgufValue.u32(64));
    m.put(ARCH + ".expert_count", GgufValue.u32(EXPERTS));
    m.put(ARCH + ".expert_used_count", GgufValue.u32(1));
    m.put(ARCH + ".full_attention_interval", GgufValue.u32(2));
    m.put(ARCH + ".rope.freq_base", GgufValue.f32(10000f));
    m.put("tokenizer.ggml.tokens", GgufValue.strings(List.of("<s>", "</s>", "a", "b")));
    m.put(
        "tokenizer.ggml.scores",
        GgufValue.array(
            GgufValueType.FLOAT32,
            List.of(
                GgufValue.f32(0f), GgufValue.f32(-1f), GgufValue.f32(-2f), GgufValue.f32(-3f))));
    return m;
  }

  static List<GgufWriter.Tensor> tensors() {
    List<GgufWriter.Tensor> t = new ArrayList<>();
    t.add(GgufWriter.Tensor.of("token_embd.weight", GgmlType.F16, WIDTH, 16));
    for (int n = 0; n < BLOCKS; n++) {
      String b = "blk." + n + ".";
      t.add(GgufWriter.Tensor.of(b + "attn_norm.weight", GgmlType.F32, WIDTH));
      if (n % 2 == 1) {
        t.add(GgufWriter.Tensor.of(b + "attn_q.weight", GgmlType.Q8_0, WIDTH, 256));
        t.add(GgufWriter.Tensor.of(b + "attn_k.weight", GgmlType.Q8_0, WIDTH, 128));
        t.add(GgufWriter.Tensor.of(b + "attn_v.weight", GgmlType.Q8_0, WIDTH, 128));
      } else {
        t.add(GgufWriter.Tensor.of(b + "ssm_in.weight", GgmlType.Q4_0, WIDTH, 128));
      }
      t.add(GgufWriter.Tensor.of(b + "ffn_gate_exps.weight", GgmlType.Q8_0, WIDTH, FFN, EXPERTS));
      t.add(GgufWriter.Tensor.of(b + "ffn_up_exps.weight", GgmlType.Q8_0, WIDTH, FFN, EXPERTS));
      t.add(GgufWriter.Tensor.of(b + "ffn_down_exps.weight", GgmlType.Q4_K, 256, WIDTH, EXPERTS));
    }
    t.add(GgufWriter.Tensor.of("output.weight", GgmlType.F16, WIDTH, 16));
    return t;
  }

  /** One expert of one layer: gate + up (Q8_0, 64×32) + down (Q4_K, 256×64) over 2 experts. */
  static long slotBytes() {
    return 2 * (WIDTH * FFN / 32 * 34) + 256 * WIDTH / 256 * 144;
  }

  static byte[] bytes() {
    return GgufWriter.toBytes(metadata(), tensors());
  }

  /**
   * The model written to {@code p} with {@code keys} put into its metadata in order (a key it has
   * keeps its place, with the new value; a new one goes last).
   */
  @SafeVarargs
  static Path writeWith(Path p, Map.Entry<String, GgufValue>... keys) throws IOException {
    SequencedMap<String, GgufValue> m = metadata();
    for (Map.Entry<String, GgufValue> k : keys) {
      m.put(k.getKey(), k.getValue());
    }
    GgufWriter.write(p, m, tensors());
    return p;
  }
}
