package dev.strata.engine.model;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import java.util.function.IntPredicate;

/**
 * Model headers shaped like published models (docs/MODELS.md, "The corpus"): the hyperparameters of
 * each model's config.json (source named per entry), written with {@link GgufWriter} as llama.cpp's
 * converter lays them out, tensor data as a sparse hole. Every header's figures are pinned against
 * the hand-computed table in docs/MODELS.md by {@code ModelCorpusTest}.
 */
public final class ModelCorpus {
  private ModelCorpus() {}

  /** How a MoE block stores its experts. */
  public enum Experts {
    NONE,
    SEPARATE,
    MERGED,
    LEGACY
  }

  /**
   * The tensors of a Gated DeltaNet (linear-attention) layer of qwen3next/qwen35/qwen35moe, as
   * llama.cpp's loaders (src/models/qwen3next.cpp, qwen35moe.cpp) read them.
   */
  public enum Linear {
    /** Only ssm_conv1d and ssm_out (the corpus's shorthand). */
    PLAIN,
    /** The current converter: attn_qkv + attn_gate (in_proj_qkvz split), then the SSM tensors. */
    QKV,
    /** Older files: one ssm_in (in_proj_qkvz as it was), then the SSM tensors. */
    SSM_IN
  }

  /** One model: the builder fields are the GGUF keys' values; -1/0 leaves a key out. */
  public static final class Spec {
    public final String name;
    public final String source;
    final String arch;
    int blocks;
    long ctx = 131_072;
    int width;
    int heads;
    int kv;
    int keyLen = -1;
    int valueLen = -1;
    long window;
    int experts;
    int used;
    int ffn = 1024;
    Experts layout = Experts.NONE;
    boolean fusedQkv;
    IntPredicate attention = n -> true;
    int interval;
    boolean kvArray;
    ArchTable.StateKind state = ArchTable.StateKind.NONE;
    Linear linear = Linear.PLAIN;
    long[] stateKeys = {};
    int nextn;
    boolean tensorsPastBlockCount;
    final SequencedMap<String, GgufValue> extra = new LinkedHashMap<>();
    boolean noTensors;
    final List<String> dropTensors = new ArrayList<>();
    final List<GgufWriter.Tensor> addTensors = new ArrayList<>();
    final List<String> dropKeys = new ArrayList<>();

    /** For {@link #damagedLayers()}: what both readers' one line says after the file name. */
    public String refusal;

    Spec(String name, String arch, String source) {
      this.name = name;
      this.arch = arch;
      this.source = source;
    }

    Spec dims(int blocks, int width, int heads, int kv) {
      this.blocks = blocks;
      this.width = width;
      this.heads = heads;
      this.kv = kv;
      return this;
    }

    Spec ctx(long c) {
      ctx = c;
      return this;
    }

    Spec headDim(int k, int v) {
      keyLen = k;
      valueLen = v;
      return this;
    }

    Spec window(long w) {
      window = w;
      return this;
    }

    Spec moe(int e, int u, int f, Experts l) {
      experts = e;
      used = u;
      ffn = f;
      layout = l;
      return this;
    }

    Spec fused() {
      fusedQkv = true;
      return this;
    }

    Spec interval(int i) {
      interval = i;
      attention = n -> (n + 1) % i == 0;
      return this;
    }

    Spec attentionAt(IntPredicate p, boolean perLayerKv) {
      attention = p;
      kvArray = perLayerKv;
      return this;
    }

    /** Mamba-style SSM layers: ssm.conv_kernel, inner_size, state_size, group_count. */
    Spec ssm(long conv, long inner, long stateSize, long groups) {
      return state(ArchTable.StateKind.SSM, conv, inner, stateSize, groups);
    }

    /** Gated DeltaNet layers as llama.cpp writes them (with {@link #ssm}; time_step_rank 32). */
    Spec linear(Linear l) {
      linear = l;
      return this;
    }

    /** LFM2's short-convolution layers: shortconv.l_cache. */
    Spec shortConv(long lCache) {
      return state(ArchTable.StateKind.SHORT_CONV, lCache);
    }

    /** The recurrent state's kind and its keys' values, in the order of {@code kind.keys}. */
    private Spec state(ArchTable.StateKind kind, long... values) {
      state = kind;
      stateKeys = values;
      return this;
    }

    Spec mtp(int n, boolean pastBlockCount) {
      nextn = n;
      tensorsPastBlockCount = pastBlockCount;
      return this;
    }

    /** DeepSeek's multi-head latent attention (MLA): its KV compressed to {@code rank}. */
    Spec mla(int rank) {
      return key("attention.kv_lora_rank", GgufValue.u32(rank));
    }

    Spec key(String suffix, GgufValue v) {
      extra.put(arch + "." + suffix, v);
      return this;
    }

    Spec vocabOnly() {
      noTensors = true;
      return this;
    }

    /** The file, written into dir. */
    public Path write(Path dir) throws IOException {
      Path p = dir.resolve(name.replaceAll("[^A-Za-z0-9.]+", "-") + ".gguf");
      List<GgufWriter.Tensor> t = noTensors ? new ArrayList<>() : tensors();
      t.removeIf(x -> dropTensors.contains(x.name()));
      t.addAll(addTensors);
      SequencedMap<String, GgufValue> m = metadata();
      for (String k : dropKeys) {
        m.remove(arch + "." + k);
      }
      GgufWriter.write(p, m, t);
      return p;
    }

    SequencedMap<String, GgufValue> metadata() {
      String a = arch + ".";
      SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
      m.put("general.architecture", GgufValue.string(arch));
      m.put("general.name", GgufValue.string(name));
      int blockCount = blocks + (tensorsPastBlockCount ? 0 : nextn);
      m.put(a + "block_count", GgufValue.u32(blockCount));
      m.put(a + "context_length", GgufValue.u32(ctx));
      m.put(a + "embedding_length", GgufValue.u32(width));
      m.put(a + "feed_forward_length", GgufValue.u32(ffn));
      m.put(a + "attention.head_count", GgufValue.u32(heads));
      if (kvArray) {
        List<GgufValue> per = new ArrayList<>();
        for (int n = 0; n < blockCount; n++) {
          per.add(GgufValue.u32(n < blocks && !attention.test(n) ? 0 : kv));
        }
        m.put(a + "attention.head_count_kv", GgufValue.array(GgufValueType.UINT32, per));
      } else {
        m.put(a + "attention.head_count_kv", GgufValue.u32(kv));
      }
      if (keyLen > 0) {
        m.put(a + "attention.key_length", GgufValue.u32(keyLen));
        m.put(a + "attention.value_length", GgufValue.u32(valueLen));
      }
      if (window > 0) {
        m.put(a + "attention.sliding_window", GgufValue.u32(window));
      }
      if (experts > 0) {
        m.put(a + "expert_count", GgufValue.u32(experts));
        m.put(a + "expert_used_count", GgufValue.u32(used));
      }
      if (interval > 0) {
        m.put(a + "full_attention_interval", GgufValue.u32(interval));
      }
      for (int i = 0; i < stateKeys.length; i++) {
        m.put(a + state.keys.get(i), GgufValue.u32(stateKeys[i]));
      }
      if (state == ArchTable.StateKind.SSM) {
        m.put(a + "ssm.time_step_rank", GgufValue.u32(32));
      }
      if (nextn > 0) {
        m.put(a + ArchTable.NEXTN_KEY, GgufValue.u32(nextn));
      }
      m.putAll(extra);
      m.put("tokenizer.ggml.model", GgufValue.string("gpt2"));
      return m;
    }

    private int hd() {
      return keyLen > 0 ? keyLen : width / heads;
    }

    private int hdv() {
      return valueLen > 0 ? valueLen : width / heads;
    }

    List<GgufWriter.Tensor> tensors() {
      List<GgufWriter.Tensor> t = new ArrayList<>();
      t.add(GgufWriter.Tensor.of("token_embd.weight", GgmlType.Q8_0, width, 32_000));
      for (int n = 0; n < blocks + nextn; n++) {
        String b = "blk." + n + ".";
        boolean drafter = n >= blocks;
        t.add(GgufWriter.Tensor.of(b + "attn_norm.weight", GgmlType.F32, width));
        if (drafter || attention.test(n)) {
          if (fusedQkv) {
            t.add(
                GgufWriter.Tensor.of(
                    b + "attn_qkv.weight",
                    GgmlType.Q8_0,
                    width,
                    (long) heads * hd() + (long) kv * (hd() + hdv())));
          } else {
            // qwen3next/qwen35: attn_q holds the output gate too (n_head × head_dim × 2)
            int q = linear == Linear.PLAIN ? 1 : 2;
            t.add(
                GgufWriter.Tensor.of(
                    b + "attn_q.weight", GgmlType.Q8_0, width, (long) q * heads * hd()));
            t.add(
                GgufWriter.Tensor.of(b + "attn_k.weight", GgmlType.Q8_0, width, (long) kv * hd()));
            t.add(
                GgufWriter.Tensor.of(b + "attn_v.weight", GgmlType.Q8_0, width, (long) kv * hdv()));
          }
          t.add(
              GgufWriter.Tensor.of(
                  b + "attn_output.weight", GgmlType.Q8_0, (long) heads * hdv(), width));
          if (linear != Linear.PLAIN) {
            t.add(GgufWriter.Tensor.of(b + "attn_q_norm.weight", GgmlType.F32, hd()));
            t.add(GgufWriter.Tensor.of(b + "attn_k_norm.weight", GgmlType.F32, hd()));
          }
        } else if (state == ArchTable.StateKind.SSM) {
          long conv = stateKeys[1] + 2 * stateKeys[3] * stateKeys[2];
          // key_dim = d_state × n_group, value_dim = d_inner, n_v_heads = time_step_rank (32)
          long keyDim = stateKeys[2] * stateKeys[3];
          long valueDim = stateKeys[1];
          long vHeads = 32;
          if (linear == Linear.QKV) {
            t.add(
                GgufWriter.Tensor.of(
                    b + "attn_qkv.weight", GgmlType.Q8_0, width, 2 * keyDim + valueDim));
            t.add(GgufWriter.Tensor.of(b + "attn_gate.weight", GgmlType.Q8_0, width, valueDim));
          } else if (linear == Linear.SSM_IN) {
            t.add(
                GgufWriter.Tensor.of(
                    b + "ssm_in.weight", GgmlType.Q8_0, width, 2 * keyDim + 2 * valueDim));
          }
          t.add(GgufWriter.Tensor.of(b + "ssm_conv1d.weight", GgmlType.F32, stateKeys[0], conv));
          if (linear != Linear.PLAIN) {
            t.add(GgufWriter.Tensor.of(b + "ssm_dt.bias", GgmlType.F32, vHeads));
            t.add(GgufWriter.Tensor.of(b + "ssm_a", GgmlType.F32, vHeads));
            if (arch.equals("qwen3next") || linear == Linear.SSM_IN) {
              t.add(GgufWriter.Tensor.of(b + "ssm_ba.weight", GgmlType.F32, width, 2 * vHeads));
            } else {
              t.add(GgufWriter.Tensor.of(b + "ssm_beta.weight", GgmlType.F32, width, vHeads));
              t.add(GgufWriter.Tensor.of(b + "ssm_alpha.weight", GgmlType.F32, width, vHeads));
            }
            t.add(GgufWriter.Tensor.of(b + "ssm_norm.weight", GgmlType.F32, stateKeys[2]));
          }
          t.add(GgufWriter.Tensor.of(b + "ssm_out.weight", GgmlType.Q8_0, stateKeys[1], width));
        } else if (state == ArchTable.StateKind.SHORT_CONV) {
          t.add(
              GgufWriter.Tensor.of(b + "shortconv.conv.weight", GgmlType.F32, stateKeys[0], width));
          t.add(
              GgufWriter.Tensor.of(
                  b + "shortconv.in_proj.weight", GgmlType.Q8_0, width, 3L * width));
          t.add(GgufWriter.Tensor.of(b + "shortconv.out_proj.weight", GgmlType.Q8_0, width, width));
        }
        if (drafter) {
          t.add(GgufWriter.Tensor.of(b + "nextn.eh_proj.weight", GgmlType.Q8_0, 2L * width, width));
          t.add(GgufWriter.Tensor.of(b + "nextn.enorm.weight", GgmlType.F32, width));
          t.add(GgufWriter.Tensor.of(b + "nextn.hnorm.weight", GgmlType.F32, width));
          t.add(GgufWriter.Tensor.of(b + "nextn.shared_head_norm.weight", GgmlType.F32, width));
        }
        t.add(GgufWriter.Tensor.of(b + "ffn_norm.weight", GgmlType.F32, width));
        if (linear != Linear.PLAIN) {
          t.add(GgufWriter.Tensor.of(b + "post_attention_norm.weight", GgmlType.F32, width));
          t.add(GgufWriter.Tensor.of(b + "ffn_gate_inp_shexp.weight", GgmlType.F32, width));
          t.add(GgufWriter.Tensor.of(b + "ffn_gate_shexp.weight", GgmlType.Q8_0, width, ffn));
          t.add(GgufWriter.Tensor.of(b + "ffn_up_shexp.weight", GgmlType.Q8_0, width, ffn));
          t.add(GgufWriter.Tensor.of(b + "ffn_down_shexp.weight", GgmlType.Q8_0, ffn, width));
        }
        switch (layout) {
          case NONE -> {
            t.add(GgufWriter.Tensor.of(b + "ffn_gate.weight", GgmlType.Q8_0, width, ffn));
            t.add(GgufWriter.Tensor.of(b + "ffn_up.weight", GgmlType.Q8_0, width, ffn));
            t.add(GgufWriter.Tensor.of(b + "ffn_down.weight", GgmlType.Q8_0, ffn, width));
          }
          case SEPARATE -> {
            t.add(GgufWriter.Tensor.of(b + "ffn_gate_inp.weight", GgmlType.F32, width, experts));
            t.add(
                GgufWriter.Tensor.of(
                    b + "ffn_gate_exps.weight", GgmlType.Q8_0, width, ffn, experts));
            t.add(
                GgufWriter.Tensor.of(b + "ffn_up_exps.weight", GgmlType.Q8_0, width, ffn, experts));
            t.add(
                GgufWriter.Tensor.of(
                    b + "ffn_down_exps.weight", GgmlType.Q8_0, ffn, width, experts));
          }
          case MERGED -> {
            t.add(GgufWriter.Tensor.of(b + "ffn_gate_inp.weight", GgmlType.F32, width, experts));
            t.add(
                GgufWriter.Tensor.of(
                    b + "ffn_gate_up_exps.weight", GgmlType.Q8_0, width, 2L * ffn, experts));
            t.add(
                GgufWriter.Tensor.of(
                    b + "ffn_down_exps.weight", GgmlType.Q8_0, ffn, width, experts));
          }
          case LEGACY -> {
            t.add(GgufWriter.Tensor.of(b + "ffn_gate_inp.weight", GgmlType.F32, width, experts));
            for (int e = 0; e < experts; e++) {
              t.add(
                  GgufWriter.Tensor.of(b + "ffn_gate." + e + ".weight", GgmlType.Q8_0, width, ffn));
              t.add(
                  GgufWriter.Tensor.of(b + "ffn_down." + e + ".weight", GgmlType.Q8_0, ffn, width));
              t.add(GgufWriter.Tensor.of(b + "ffn_up." + e + ".weight", GgmlType.Q8_0, width, ffn));
            }
          }
        }
      }
      t.add(GgufWriter.Tensor.of("output_norm.weight", GgmlType.F32, width));
      t.add(GgufWriter.Tensor.of("output.weight", GgmlType.Q8_0, width, 32_000));
      return t;
    }
  }

  private static Spec s(String name, String arch, String source) {
    return new Spec(name, arch, source);
  }

  private static final String HF = "huggingface.co/";

  /** Every model of the corpus, in the order of the table in docs/MODELS.md. */
  public static List<Spec> all() {
    List<Spec> l = new ArrayList<>();
    // llama: converters write no key_length (head_dim = embedding_length / head_count)
    l.add(
        hf("Llama-3.1-8B", "llama", "meta-llama/Llama-3.1-8B").dims(32, 4096, 32, 8).ctx(131_072));
    l.add(hf("Llama-3.2-1B", "llama", "meta-llama/Llama-3.2-1B").dims(16, 2048, 32, 8));
    l.add(hf("Llama-3.2-3B", "llama", "meta-llama/Llama-3.2-3B").dims(28, 3072, 24, 8));
    l.add(hf("Llama-3.1-70B", "llama", "meta-llama/Llama-3.1-70B").dims(80, 8192, 64, 8));
    l.add(
        hf("Mistral-7B-v0.1", "llama", "mistralai/Mistral-7B-v0.1", " (sliding_window 4096)")
            .dims(32, 4096, 32, 8)
            .ctx(32_768)
            .window(4096));
    l.add(
        hf("Mistral-7B-v0.3", "llama", "mistralai/Mistral-7B-v0.3")
            .dims(32, 4096, 32, 8)
            .ctx(32_768));
    l.add(
        hf(
                "Mixtral-8x7B (legacy experts)",
                "llama",
                "mistralai/Mixtral-8x7B-v0.1",
                "; early GGUFs' ffn_gate.E tensors")
            .dims(32, 4096, 32, 8)
            .ctx(32_768)
            .moe(8, 2, 14336, Experts.LEGACY));
    l.add(
        hf("Mixtral-8x7B (merged experts)", "llama", "mistralai/Mixtral-8x7B-v0.1")
            .dims(32, 4096, 32, 8)
            .ctx(32_768)
            .moe(8, 2, 14336, Experts.SEPARATE));
    l.add(hf("Qwen2.5-0.5B", "qwen2", "Qwen/Qwen2.5-0.5B").dims(24, 896, 14, 2).ctx(32_768));
    l.add(hf("Qwen2.5-7B", "qwen2", "Qwen/Qwen2.5-7B").dims(28, 3584, 28, 4).ctx(131_072));
    l.add(hf("Qwen2.5-72B", "qwen2", "Qwen/Qwen2.5-72B").dims(80, 8192, 64, 8));
    l.add(
        qwen3(hf("Qwen3-0.6B", "qwen3", "Qwen/Qwen3-0.6B", " (head_dim 128)"))
            .dims(28, 1024, 16, 8));
    l.add(qwen3(hf("Qwen3-8B", "qwen3", "Qwen/Qwen3-8B")).dims(36, 4096, 32, 8));
    l.add(
        qwen3(hf("Qwen3-30B-A3B (separate experts)", "qwen3moe", "Qwen/Qwen3-30B-A3B"))
            .dims(48, 2048, 32, 4)
            .moe(128, 8, 768, Experts.SEPARATE));
    l.add(
        qwen3(
                hf(
                    "Qwen3-30B-A3B (merged gate_up)",
                    "qwen3moe",
                    "Qwen/Qwen3-30B-A3B",
                    "; current llama.cpp's ffn_gate_up_exps"))
            .dims(48, 2048, 32, 4)
            .moe(128, 8, 768, Experts.MERGED));
    l.add(
        qwen3(hf("Qwen3-235B-A22B", "qwen3moe", "Qwen/Qwen3-235B-A22B"))
            .dims(94, 4096, 64, 4)
            .moe(128, 8, 1536, Experts.SEPARATE));
    l.add(qwen3Next("Qwen3-Next-80B-A3B", 0, false));
    l.add(qwen3Next("Qwen3-Next-80B-A3B + MTP, --spec 0", 1, false));
    l.add(qwen3Next("Qwen3-Next-80B-A3B + MTP, --spec 2", 1, false));
    l.add(
        qwen35Moe(
            "Qwen3.5-style hybrid MoE",
            "Qwen3-Next's layer shapes at 40 blocks (interval 4): a Qwen3.5/3.6-style hybrid, not one published config"));
    // as current and older llama.cpp converters write them: the linear-attention layers carry
    // attn_qkv (+ attn_gate) or ssm_in; only the interval makes an attention layer
    for (Linear style : new Linear[] {Linear.QKV, Linear.SSM_IN}) {
      String how =
          style == Linear.QKV
              ? "attn_qkv linear layers (current converter)"
              : "ssm_in linear layers (older files)";
      l.add(qwen3Next("Qwen3-Next-80B-A3B, " + how, 0, false).linear(style));
      l.add(
          qwen35Moe(
                  "Qwen3.6-35B-A3B shape, " + how,
                  "Qwen3.5/3.6-35B-A3B's layer shapes (40 blocks, interval 4); tensor lists from"
                      + " llama.cpp src/models/qwen35moe.cpp, qwen3next.cpp")
              .linear(style));
    }
    l.add(gptOss("gpt-oss-20b", " (sliding_window 128, alternating)", 24, 32));
    l.add(gptOss("gpt-oss-120b", "", 36, 128));
    l.add(
        hf("gemma-3-1b", "gemma3", "google/gemma-3-1b-pt", " (sliding_window 512, pattern 6)")
            .dims(26, 1152, 4, 1)
            .headDim(256, 256)
            .window(512)
            .ctx(32_768));
    l.add(
        hf("gemma-3-4b", "gemma3", "google/gemma-3-4b-pt", " (sliding_window 1024)")
            .dims(34, 2560, 8, 4)
            .headDim(256, 256)
            .window(1024));
    l.add(
        hf("gemma-3-27b", "gemma3", "google/gemma-3-27b-pt")
            .dims(62, 5376, 32, 16)
            .headDim(128, 128)
            .window(1024));
    l.add(
        hf("LFM2-1.2B", "lfm2", "LiquidAI/LFM2-1.2B", " (attention at 2,5,8,10,12,14; L_cache 3)")
            .dims(16, 2048, 32, 8)
            .ctx(128_000)
            .attentionAt(n -> n == 2 || n == 5 || n == 8 || n == 10 || n == 12 || n == 14, true)
            .shortConv(3));
    l.add(
        hf("Phi-3-mini-4k", "phi3", "microsoft/Phi-3-mini-4k-instruct", " (fused qkv, head_dim 96)")
            .dims(32, 3072, 32, 32)
            .ctx(4096)
            .fused()
            .window(2047));
    l.add(
        hf("Phi-2", "phi2", "microsoft/phi-2", " (fused qkv, head_dim 80)")
            .dims(32, 2560, 32, 32)
            .ctx(2048)
            .fused());
    // refused
    l.add(
        hf("DeepSeek-V2-Lite", "deepseek2", "deepseek-ai/DeepSeek-V2-Lite", " (kv_lora_rank 512)")
            .dims(27, 2048, 16, 16)
            .ctx(163_840)
            .mla(512)
            .moe(64, 6, 1408, Experts.SEPARATE));
    l.add(
        hf(
                "Kimi-K2",
                "deepseek2",
                "moonshotai/Kimi-K2-Instruct",
                " (DeepSeek-V3 architecture, MLA)")
            .dims(61, 7168, 64, 64)
            .mla(512)
            .moe(384, 8, 2048, Experts.SEPARATE));
    l.add(hf("bge-small-en-v1.5", "bert", "BAAI/bge-small-en-v1.5").dims(12, 384, 12, 12).ctx(512));
    l.add(
        hf("nomic-embed-text-v1.5", "nomic-bert", "nomic-ai/nomic-embed-text-v1.5")
            .dims(12, 768, 12, 12)
            .ctx(2048)
            .fused());
    l.add(
        hf("mamba-130m", "mamba", "state-spaces/mamba-130m")
            .dims(24, 768, 1, 1)
            .ctx(1_048_576)
            .attentionAt(n -> false, false)
            .ssm(4, 1536, 16, 0));
    l.add(
        s(
                "ggml-vocab-qwen2 (tokenizer only)",
                "qwen2",
                "llama.cpp models/ggml-vocab-*.gguf: metadata, no tensors")
            .dims(24, 896, 14, 2)
            .vocabOnly());
    return l;
  }

  /** A small Qwen3-Next as the current converter writes it: 8 blocks, attention in 3 and 7. */
  private static Spec smallNext(String name) {
    return s(
            name,
            "qwen3next",
            "Qwen3-Next's tensor lists (llama.cpp src/models/qwen3next.cpp) at 8 blocks")
        .dims(8, 256, 4, 2)
        .headDim(64, 64)
        .moe(4, 2, 64, Experts.MERGED)
        .interval(4)
        .ssm(4, 256, 32, 4)
        .linear(Linear.QKV);
  }

  private static Spec refusing(Spec s, String words) {
    s.refusal = words;
    return s;
  }

  /**
   * Headers the layer rules (ArchTable.Layers) take or refuse, one per rule and fault (issue 28):
   * both readers plan the taken ones alike and give the refused ones the same line ({@link
   * Spec#refusal}; null for a header that is taken).
   */
  public static List<Spec> layerCases() {
    List<Spec> l = new ArrayList<>();
    String kv = "blk.N.attn_k.weight or blk.N.attn_qkv.weight";
    l.add(smallNext("next-qkv"));
    Spec older = smallNext("next-ssm-in").linear(Linear.SSM_IN);
    l.add(older);
    Spec noKey = smallNext("next-no-interval-key");
    noKey.dropKeys.add("full_attention_interval");
    l.add(noKey);
    Spec strayK = smallNext("next-attn-k-in-a-linear-layer");
    strayK.addTensors.add(GgufWriter.Tensor.of("blk.0.attn_k.weight", GgmlType.Q8_0, 256, 128));
    l.add(
        refusing(
            strayK,
            "qwen3next.full_attention_interval 4 means linear-attention (recurrent) layers [0, 1,"
                + " 2, 4, 5, 6] but blk.N.attn_k.weight exists for [0]; the model is damaged"));
    Spec noAttn = smallNext("next-attention-layer-without-k");
    noAttn.dropTensors.addAll(List.of("blk.3.attn_k.weight", "blk.3.attn_q.weight"));
    l.add(
        refusing(
            noAttn,
            "qwen3next.full_attention_interval 4 means attention layers [3, 7] but block 3 has no "
                + kv
                + "; the model is damaged"));
    Spec conv = smallNext("next-conv-in-an-attention-layer");
    conv.addTensors.add(GgufWriter.Tensor.of("blk.7.ssm_conv1d.weight", GgmlType.F32, 4, 512));
    l.add(
        refusing(
            conv,
            "qwen3next.full_attention_interval 4 means attention layers [3, 7] but"
                + " blk.7.ssm_conv1d.weight (a recurrent layer's) exists; the model is damaged"));
    Spec wide =
        smallNext("next-interval-past-the-blocks").key("full_attention_interval", GgufValue.u32(9));
    l.add(
        refusing(
            wide,
            "qwen3next.full_attention_interval 9 puts no attention layer in its 8 blocks; the"
                + " engine runs models with attention KV pools (docs/MODELS.md)"));
    Spec llama =
        s("llama-gap", "llama", "Llama's loader: attention in every block").dims(4, 64, 4, 2);
    llama.dropTensors.addAll(List.of("blk.1.attn_k.weight", "blk.2.attn_k.weight"));
    l.add(
        refusing(
            llama,
            "llama has an attention layer in every block (as llama.cpp's llama loader reads it)"
                + " but blocks [1, 2] have no "
                + kv
                + "; the model is incomplete"));
    Spec lfm =
        s("lfm2-attention-in-a-conv-layer", "lfm2", "LFM2's loader: 0 KV heads is a conv layer")
            .dims(4, 64, 4, 2)
            .attentionAt(n -> n == 3, true)
            .shortConv(3);
    lfm.addTensors.add(GgufWriter.Tensor.of("blk.1.attn_qkv.weight", GgmlType.Q8_0, 64, 96));
    l.add(
        refusing(
            lfm,
            "lfm2.attention.head_count_kv gives block 1 0 KV heads (recurrent layers) but it holds "
                + kv
                + "; the model is damaged"));
    // a key present with a bad value names the value, not a missing key
    l.add(
        refusing(
            s("llama-zero-key-length", "llama", "a bad value")
                .dims(4, 64, 4, 2)
                .headDim(16, 16)
                .key("attention.key_length", GgufValue.u32(0)),
            "llama.attention.key_length is 0, but an attention head needs at least one value; the"
                + " file is damaged"));
    l.add(
        refusing(
            s("llama-zero-kv-heads", "llama", "a bad value")
                .dims(4, 64, 4, 2)
                .key("attention.head_count_kv", GgufValue.u32(0)),
            "llama.attention.head_count_kv is 0 but the model has attention layers, which need at"
                + " least one KV head; the file is damaged"));
    return l;
  }

  /** Qwen3's head_dim 128 and 40,960 positions, the same in every size's config.json. */
  private static Spec qwen3(Spec s) {
    return s.headDim(128, 128).ctx(40_960);
  }

  /** A model of a published config.json: {@code repo}'s on huggingface.co. */
  private static Spec hf(String name, String arch, String repo) {
    return hf(name, arch, repo, "");
  }

  /** A model of a published config.json: {@code repo}'s on huggingface.co, {@code note} after. */
  private static Spec hf(String name, String arch, String repo, String note) {
    return s(name, arch, HF + repo + " config.json" + note);
  }

  /**
   * The Qwen3.5/3.6-35B-A3B hybrid shape: 40 blocks of width 2048, attention every 4th (16 heads, 2
   * KV, head_dim 256), 256 merged experts (8 used, FFN 512), Gated DeltaNet layers between.
   */
  private static Spec qwen35Moe(String name, String source) {
    return s(name, "qwen35moe", source)
        .dims(40, 2048, 16, 2)
        .headDim(256, 256)
        .ctx(262_144)
        .moe(256, 8, 512, Experts.MERGED)
        .interval(4)
        .ssm(4, 4096, 128, 16);
  }

  /**
   * A gpt-oss of openai/{@code name}'s config.json: width 2880, 64 heads (8 KV) of 64, sliding
   * window 128, {@code experts} merged experts (4 used, FFN 2880).
   */
  private static Spec gptOss(String name, String note, int blocks, int experts) {
    return hf(name, "gpt-oss", "openai/" + name, note)
        .dims(blocks, 2880, 64, 8)
        .headDim(64, 64)
        .window(128)
        .moe(experts, 4, 2880, Experts.MERGED);
  }

  private static Spec qwen3Next(String name, int nextn, boolean past) {
    return hf(name, "qwen3next", "Qwen/Qwen3-Next-80B-A3B-Instruct")
        .dims(48, 2048, 16, 2)
        .headDim(256, 256)
        .ctx(262_144)
        .moe(512, 10, 512, Experts.SEPARATE)
        .interval(4)
        .ssm(4, 4096, 128, 16)
        .mtp(nextn, past);
  }
}
