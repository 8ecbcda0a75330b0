package dev.strata.engine.model;

import dev.strata.engine.trust.TrustedPath;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;

/**
 * Small synthetic models that strata-ref really computes, for tests: every tensor and key its
 * loader needs (engine/native/src/model.c, after llama.cpp's) in the {@code llama}, {@code qwen2}
 * (q/k/v biases), {@code qwen3} (per-head q/k RMSNorm) and {@code qwen3moe} (experts) layouts, a
 * byte-level BPE vocabulary of the 256 byte tokens, and seeded random weights ({@link
 * GgufWriter#writeSplit}). The seed geometry ({@link DemoModel}, {@code qwen3next}) is a planning
 * model strata-ref refuses; these are the ones it runs.
 *
 * @param arch general.architecture: llama, qwen2, qwen3 or qwen3moe
 * @param blocks block_count
 * @param width embedding_length
 * @param heads attention.head_count
 * @param kvHeads attention.head_count_kv
 * @param headDim attention.key_length = value_length
 * @param ffn feed_forward_length (0: the key is not written; a MoE may leave it out)
 * @param experts expert_count (0: a dense model)
 * @param expertsUsed expert_used_count
 * @param expertFfn expert_feed_forward_length
 * @param vocab rows of token_embd (at least 256: the byte tokens)
 * @param weights the type of the matrices (F32, F16, Q8_0 or Q4_0); 1-D tensors are F32
 * @param expertWeights the type of the expert tensors
 */
public record TinyModel(
    String arch,
    int blocks,
    int width,
    int heads,
    int kvHeads,
    int headDim,
    int ffn,
    int experts,
    int expertsUsed,
    int expertFfn,
    int vocab,
    GgmlType weights,
    GgmlType expertWeights) {

  /** A dense model of the seed's attention (2 KV heads × 256): 2 blocks, width 128, Q8_0. */
  public static TinyModel dense(String arch) {
    return new TinyModel(arch, 2, 128, 4, 2, 256, 256, 0, 0, 0, 256, GgmlType.Q8_0, GgmlType.Q8_0);
  }

  /** A qwen3moe of the seed's attention: 2 blocks, 16 experts of FFN 64 (4 used), Q8_0. */
  public static TinyModel moe() {
    return new TinyModel(
        "qwen3moe", 2, 128, 4, 2, 256, 0, 16, 4, 64, 256, GgmlType.Q8_0, GgmlType.Q8_0);
  }

  /**
   * A qwen3moe with the seed's attention: 12 layers (all of them attention: the seed's 12 QSA
   * layers) of 2 KV heads × 256, so its KV pools are the seed's to the byte; 16 experts of FFN 64
   * (4 used), width 128, Q8_0. About 10 MB.
   */
  public static TinyModel seedAttention() {
    return new TinyModel(
        "qwen3moe", 12, 128, 4, 2, 256, 0, 16, 4, 64, 256, GgmlType.Q8_0, GgmlType.Q8_0);
  }

  /** The same model with heads of this size (128 holds int8 but not q4_0). */
  public TinyModel withHeadDim(int d) {
    return new TinyModel(
        arch,
        blocks,
        width,
        heads,
        kvHeads,
        d,
        ffn,
        experts,
        expertsUsed,
        expertFfn,
        vocab,
        weights,
        expertWeights);
  }

  /** Writes the model into {@code dir} as {@code shards} files named after {@code prefix}. */
  public List<Path> write(Path dir, String prefix, int shards, long seed) throws IOException {
    return write(dir, prefix, shards, seed, java.util.Map.of());
  }

  /**
   * {@link #write(Path, String, int, long)} with {@code extra} GGUF keys added to (or replacing
   * those of) {@link #metadata()}, e.g. a {@code tokenizer.chat_template}.
   */
  public List<Path> write(
      Path dir, String prefix, int shards, long seed, java.util.Map<String, GgufValue> extra)
      throws IOException {
    Files.createDirectories(dir);
    SequencedMap<String, GgufValue> meta = metadata();
    meta.putAll(extra);
    return GgufWriter.writeSplit(
        dir, prefix, shards, meta, tensors(), TrustedPath.Subject.output("GGUF file", null), seed);
  }

  /**
   * The context, width, attention and RoPE keys of {@code ARCH.}-prefixed metadata {@code a}, in
   * the order llama.cpp's converters write them (the demo model's and the tiny models' alike).
   *
   * @param headDim the key and value length of a head
   * @param ropeDim {@code rope.dimension_count}: the dimensions a head rotates
   */
  static void putAttention(
      SequencedMap<String, GgufValue> m,
      String a,
      int context,
      int width,
      int heads,
      int kvHeads,
      int headDim,
      float ropeBase,
      int ropeDim) {
    m.put(a + "context_length", GgufValue.u32(context));
    m.put(a + "embedding_length", GgufValue.u32(width));
    m.put(a + "attention.head_count", GgufValue.u32(heads));
    m.put(a + "attention.head_count_kv", GgufValue.u32(kvHeads));
    m.put(a + "attention.key_length", GgufValue.u32(headDim));
    m.put(a + "attention.value_length", GgufValue.u32(headDim));
    m.put(a + "attention.layer_norm_rms_epsilon", GgufValue.f32(1e-6f));
    m.put(a + "rope.freq_base", GgufValue.f32(ropeBase));
    m.put(a + "rope.dimension_count", GgufValue.u32(ropeDim));
  }

  /**
   * The MoE keys of {@code ARCH.}-prefixed metadata {@code a}: expert_count, expert_used_count,
   * expert_feed_forward_length (the demo model's and the tiny MoE's alike).
   */
  static void putExperts(
      SequencedMap<String, GgufValue> m, String a, int experts, int used, int expertFfn) {
    m.put(a + "expert_count", GgufValue.u32(experts));
    m.put(a + "expert_used_count", GgufValue.u32(used));
    m.put(a + "expert_feed_forward_length", GgufValue.u32(expertFfn));
  }

  /**
   * A block's attention projections, after llama.cpp's loaders: attn_q (e → q), attn_k and attn_v
   * (e → kv each), attn_output (out → e), all of {@code type}.
   *
   * @param b the block's prefix, "blk.N."
   * @param out attn_output's input width: heads × head_dim (q is wider when it carries a gate)
   */
  static void addAttention(
      List<GgufWriter.Tensor> t, String b, GgmlType type, long e, long q, long kv, long out) {
    t.add(GgufWriter.Tensor.of(b + "attn_q.weight", type, e, q));
    t.add(GgufWriter.Tensor.of(b + "attn_k.weight", type, e, kv));
    t.add(GgufWriter.Tensor.of(b + "attn_v.weight", type, e, kv));
    t.add(GgufWriter.Tensor.of(b + "attn_output.weight", type, out, e));
  }

  /**
   * A block's router and experts: ffn_gate_inp (F32, e → experts), then ffn_gate_exps and
   * ffn_up_exps (e → ffn) and ffn_down_exps (ffn → e), each × experts, of {@code type}.
   */
  static void addExperts(
      List<GgufWriter.Tensor> t, String b, GgmlType type, long e, long ffn, long experts) {
    t.add(GgufWriter.Tensor.of(b + "ffn_gate_inp.weight", GgmlType.F32, e, experts));
    t.add(GgufWriter.Tensor.of(b + "ffn_gate_exps.weight", type, e, ffn, experts));
    t.add(GgufWriter.Tensor.of(b + "ffn_up_exps.weight", type, e, ffn, experts));
    t.add(GgufWriter.Tensor.of(b + "ffn_down_exps.weight", type, ffn, e, experts));
  }

  /** The metadata: the architecture's keys and the vocabulary. */
  public SequencedMap<String, GgufValue> metadata() {
    String a = arch + ".";
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("general.architecture", GgufValue.string(arch));
    m.put("general.name", GgufValue.string("tiny-" + arch));
    m.put(a + "block_count", GgufValue.u32(blocks));
    putAttention(m, a, 32_768, width, heads, kvHeads, headDim, 10_000f, headDim);
    if (ffn > 0) {
      m.put(a + "feed_forward_length", GgufValue.u32(ffn));
    }
    if (experts > 0) {
      putExperts(m, a, experts, expertsUsed, expertFfn);
    }
    m.put("tokenizer.ggml.model", GgufValue.string("gpt2"));
    m.put("tokenizer.ggml.pre", GgufValue.string("gpt-2"));
    m.put("tokenizer.ggml.tokens", GgufValue.strings(tokens()));
    m.put("tokenizer.ggml.merges", GgufValue.strings(List.of()));
    m.put("tokenizer.ggml.bos_token_id", GgufValue.u32(0));
    m.put("tokenizer.ggml.eos_token_id", GgufValue.u32(0));
    return m;
  }

  /** The tensors strata-ref's loader asks for, in the architecture's layout. */
  public List<GgufWriter.Tensor> tensors() {
    long e = width;
    long q = (long) heads * headDim;
    long kv = (long) kvHeads * headDim;
    List<GgufWriter.Tensor> t = new ArrayList<>();
    t.add(GgufWriter.Tensor.of("token_embd.weight", weights, e, vocab));
    t.add(GgufWriter.Tensor.of("output_norm.weight", GgmlType.F32, e));
    for (int n = 0; n < blocks; n++) {
      String b = "blk." + n + ".";
      t.add(GgufWriter.Tensor.of(b + "attn_norm.weight", GgmlType.F32, e));
      addAttention(t, b, weights, e, q, kv, q);
      if (arch.equals("qwen2")) {
        t.add(GgufWriter.Tensor.of(b + "attn_q.bias", GgmlType.F32, q));
        t.add(GgufWriter.Tensor.of(b + "attn_k.bias", GgmlType.F32, kv));
        t.add(GgufWriter.Tensor.of(b + "attn_v.bias", GgmlType.F32, kv));
      }
      if (arch.startsWith("qwen3")) {
        t.add(GgufWriter.Tensor.of(b + "attn_q_norm.weight", GgmlType.F32, headDim));
        t.add(GgufWriter.Tensor.of(b + "attn_k_norm.weight", GgmlType.F32, headDim));
      }
      t.add(GgufWriter.Tensor.of(b + "ffn_norm.weight", GgmlType.F32, e));
      if (experts > 0) {
        addExperts(t, b, expertWeights, e, expertFfn, experts);
      } else {
        t.add(GgufWriter.Tensor.of(b + "ffn_gate.weight", weights, e, ffn));
        t.add(GgufWriter.Tensor.of(b + "ffn_up.weight", weights, e, ffn));
        t.add(GgufWriter.Tensor.of(b + "ffn_down.weight", weights, ffn, e));
      }
    }
    return t;
  }

  /**
   * The 256 byte tokens as GPT-2's byte-to-unicode table spells them, then {@code <xN>} fillers.
   */
  private List<String> tokens() {
    List<String> out = new ArrayList<>(vocab);
    int extra = 0;
    for (int b = 0; b < 256; b++) {
      boolean printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
      out.add(Character.toString(printable ? b : 256 + extra++));
    }
    for (int i = 256; i < vocab; i++) {
      out.add("<x" + i + ">");
    }
    return out;
  }
}
