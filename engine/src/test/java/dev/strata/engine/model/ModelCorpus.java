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
    long[] stateKeys = {};
    int nextn;
    boolean tensorsPastBlockCount;
    final SequencedMap<String, GgufValue> extra = new LinkedHashMap<>();
    boolean noTensors;

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

    Spec ssm(long conv, long inner, long stateSize, long groups) {
      state = ArchTable.StateKind.SSM;
      stateKeys = new long[] {conv, inner, stateSize, groups};
      return this;
    }

    Spec shortConv(long lCache) {
      state = ArchTable.StateKind.SHORT_CONV;
      stateKeys = new long[] {lCache};
      return this;
    }

    Spec mtp(int n, boolean pastBlockCount) {
      nextn = n;
      tensorsPastBlockCount = pastBlockCount;
      return this;
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
      GgufWriter.write(p, metadata(), noTensors ? List.of() : tensors());
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
            t.add(
                GgufWriter.Tensor.of(
                    b + "attn_q.weight", GgmlType.Q8_0, width, (long) heads * hd()));
            t.add(
                GgufWriter.Tensor.of(b + "attn_k.weight", GgmlType.Q8_0, width, (long) kv * hd()));
            t.add(
                GgufWriter.Tensor.of(b + "attn_v.weight", GgmlType.Q8_0, width, (long) kv * hdv()));
          }
          t.add(
              GgufWriter.Tensor.of(
                  b + "attn_output.weight", GgmlType.Q8_0, (long) heads * hdv(), width));
        } else if (state == ArchTable.StateKind.SSM) {
          long conv = stateKeys[1] + 2 * stateKeys[3] * stateKeys[2];
          t.add(GgufWriter.Tensor.of(b + "ssm_conv1d.weight", GgmlType.F32, stateKeys[0], conv));
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
        s("Llama-3.1-8B", "llama", HF + "meta-llama/Llama-3.1-8B config.json")
            .dims(32, 4096, 32, 8)
            .ctx(131_072));
    l.add(
        s("Llama-3.2-1B", "llama", HF + "meta-llama/Llama-3.2-1B config.json")
            .dims(16, 2048, 32, 8));
    l.add(
        s("Llama-3.2-3B", "llama", HF + "meta-llama/Llama-3.2-3B config.json")
            .dims(28, 3072, 24, 8));
    l.add(
        s("Llama-3.1-70B", "llama", HF + "meta-llama/Llama-3.1-70B config.json")
            .dims(80, 8192, 64, 8));
    l.add(
        s(
                "Mistral-7B-v0.1",
                "llama",
                HF + "mistralai/Mistral-7B-v0.1 config.json (sliding_window 4096)")
            .dims(32, 4096, 32, 8)
            .ctx(32_768)
            .window(4096));
    l.add(
        s("Mistral-7B-v0.3", "llama", HF + "mistralai/Mistral-7B-v0.3 config.json")
            .dims(32, 4096, 32, 8)
            .ctx(32_768));
    l.add(
        s(
                "Mixtral-8x7B (legacy experts)",
                "llama",
                HF + "mistralai/Mixtral-8x7B-v0.1 config.json; early GGUFs' ffn_gate.E tensors")
            .dims(32, 4096, 32, 8)
            .ctx(32_768)
            .moe(8, 2, 14336, Experts.LEGACY));
    l.add(
        s("Mixtral-8x7B (merged experts)", "llama", HF + "mistralai/Mixtral-8x7B-v0.1 config.json")
            .dims(32, 4096, 32, 8)
            .ctx(32_768)
            .moe(8, 2, 14336, Experts.SEPARATE));
    l.add(
        s("Qwen2.5-0.5B", "qwen2", HF + "Qwen/Qwen2.5-0.5B config.json")
            .dims(24, 896, 14, 2)
            .ctx(32_768));
    l.add(
        s("Qwen2.5-7B", "qwen2", HF + "Qwen/Qwen2.5-7B config.json")
            .dims(28, 3584, 28, 4)
            .ctx(131_072));
    l.add(s("Qwen2.5-72B", "qwen2", HF + "Qwen/Qwen2.5-72B config.json").dims(80, 8192, 64, 8));
    l.add(
        s("Qwen3-0.6B", "qwen3", HF + "Qwen/Qwen3-0.6B config.json (head_dim 128)")
            .dims(28, 1024, 16, 8)
            .headDim(128, 128)
            .ctx(40_960));
    l.add(
        s("Qwen3-8B", "qwen3", HF + "Qwen/Qwen3-8B config.json")
            .dims(36, 4096, 32, 8)
            .headDim(128, 128)
            .ctx(40_960));
    l.add(
        s("Qwen3-30B-A3B (separate experts)", "qwen3moe", HF + "Qwen/Qwen3-30B-A3B config.json")
            .dims(48, 2048, 32, 4)
            .headDim(128, 128)
            .ctx(40_960)
            .moe(128, 8, 768, Experts.SEPARATE));
    l.add(
        s(
                "Qwen3-30B-A3B (merged gate_up)",
                "qwen3moe",
                HF + "Qwen/Qwen3-30B-A3B config.json; current llama.cpp's ffn_gate_up_exps")
            .dims(48, 2048, 32, 4)
            .headDim(128, 128)
            .ctx(40_960)
            .moe(128, 8, 768, Experts.MERGED));
    l.add(
        s("Qwen3-235B-A22B", "qwen3moe", HF + "Qwen/Qwen3-235B-A22B config.json")
            .dims(94, 4096, 64, 4)
            .headDim(128, 128)
            .ctx(40_960)
            .moe(128, 8, 1536, Experts.SEPARATE));
    l.add(qwen3Next("Qwen3-Next-80B-A3B", 0, false));
    l.add(qwen3Next("Qwen3-Next-80B-A3B + MTP, --spec 0", 1, false));
    l.add(qwen3Next("Qwen3-Next-80B-A3B + MTP, --spec 2", 1, false));
    l.add(
        s(
                "Qwen3.5-style hybrid MoE",
                "qwen35moe",
                "Qwen3-Next's layer shapes at 40 blocks (interval 4): a Qwen3.5/3.6-style hybrid, not one published config")
            .dims(40, 2048, 16, 2)
            .headDim(256, 256)
            .ctx(262_144)
            .moe(256, 8, 512, Experts.MERGED)
            .interval(4)
            .ssm(4, 4096, 128, 16));
    l.add(
        s(
                "gpt-oss-20b",
                "gpt-oss",
                HF + "openai/gpt-oss-20b config.json (sliding_window 128, alternating)")
            .dims(24, 2880, 64, 8)
            .headDim(64, 64)
            .window(128)
            .moe(32, 4, 2880, Experts.MERGED));
    l.add(
        s("gpt-oss-120b", "gpt-oss", HF + "openai/gpt-oss-120b config.json")
            .dims(36, 2880, 64, 8)
            .headDim(64, 64)
            .window(128)
            .moe(128, 4, 2880, Experts.MERGED));
    l.add(
        s(
                "gemma-3-1b",
                "gemma3",
                HF + "google/gemma-3-1b-pt config.json (sliding_window 512, pattern 6)")
            .dims(26, 1152, 4, 1)
            .headDim(256, 256)
            .window(512)
            .ctx(32_768));
    l.add(
        s("gemma-3-4b", "gemma3", HF + "google/gemma-3-4b-pt config.json (sliding_window 1024)")
            .dims(34, 2560, 8, 4)
            .headDim(256, 256)
            .window(1024));
    l.add(
        s("gemma-3-27b", "gemma3", HF + "google/gemma-3-27b-pt config.json")
            .dims(62, 5376, 32, 16)
            .headDim(128, 128)
            .window(1024));
    l.add(
        s(
                "LFM2-1.2B",
                "lfm2",
                HF + "LiquidAI/LFM2-1.2B config.json (attention at 2,5,8,10,12,14; L_cache 3)")
            .dims(16, 2048, 32, 8)
            .ctx(128_000)
            .attentionAt(n -> n == 2 || n == 5 || n == 8 || n == 10 || n == 12 || n == 14, true)
            .shortConv(3));
    l.add(
        s(
                "Phi-3-mini-4k",
                "phi3",
                HF + "microsoft/Phi-3-mini-4k-instruct config.json (fused qkv, head_dim 96)")
            .dims(32, 3072, 32, 32)
            .ctx(4096)
            .fused()
            .window(2047));
    l.add(
        s("Phi-2", "phi2", HF + "microsoft/phi-2 config.json (fused qkv, head_dim 80)")
            .dims(32, 2560, 32, 32)
            .ctx(2048)
            .fused());
    // refused
    l.add(
        s(
                "DeepSeek-V2-Lite",
                "deepseek2",
                HF + "deepseek-ai/DeepSeek-V2-Lite config.json (kv_lora_rank 512)")
            .dims(27, 2048, 16, 16)
            .ctx(163_840)
            .key("attention.kv_lora_rank", GgufValue.u32(512))
            .moe(64, 6, 1408, Experts.SEPARATE));
    l.add(
        s(
                "Kimi-K2",
                "deepseek2",
                HF + "moonshotai/Kimi-K2-Instruct config.json (DeepSeek-V3 architecture, MLA)")
            .dims(61, 7168, 64, 64)
            .key("attention.kv_lora_rank", GgufValue.u32(512))
            .moe(384, 8, 2048, Experts.SEPARATE));
    l.add(
        s("bge-small-en-v1.5", "bert", HF + "BAAI/bge-small-en-v1.5 config.json")
            .dims(12, 384, 12, 12)
            .ctx(512));
    l.add(
        s("nomic-embed-text-v1.5", "nomic-bert", HF + "nomic-ai/nomic-embed-text-v1.5 config.json")
            .dims(12, 768, 12, 12)
            .ctx(2048)
            .fused());
    l.add(
        s("mamba-130m", "mamba", HF + "state-spaces/mamba-130m config.json")
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

  private static Spec qwen3Next(String name, int nextn, boolean past) {
    return s(name, "qwen3next", HF + "Qwen/Qwen3-Next-80B-A3B-Instruct config.json")
        .dims(48, 2048, 16, 2)
        .headDim(256, 256)
        .ctx(262_144)
        .moe(512, 10, 512, Experts.SEPARATE)
        .interval(4)
        .ssm(4, 4096, 128, 16)
        .mtp(nextn, past);
  }
}
