package dev.strata.engine.model;

import static dev.strata.engine.model.ArchTable.Layers.ALL;
import static dev.strata.engine.model.ArchTable.Layers.INTERVAL;
import static dev.strata.engine.model.ArchTable.Layers.KV_HEADS;
import static dev.strata.engine.model.ArchTable.Layers.TENSORS;
import static dev.strata.engine.model.ArchTable.StateKind.NONE;
import static dev.strata.engine.model.ArchTable.StateKind.SHORT_CONV;
import static dev.strata.engine.model.ArchTable.StateKind.SSM;
import static dev.strata.engine.model.ArchTable.Support.ENCODER;
import static dev.strata.engine.model.ArchTable.Support.MLA;
import static dev.strata.engine.model.ArchTable.Support.RECURRENT_ONLY;
import static dev.strata.engine.model.ArchTable.Support.RUNS;

import java.util.List;

/**
 * The architecture table: the one source of the per-architecture rules of docs/MODELS.md. {@link
 * GeometryRules} applies it; strata-ref's {@code engine/native/src/archs.def} is rendered from it
 * by {@link ArchDef} (a test fails when the committed file differs), so the C reader cannot drift.
 *
 * <p>Which blocks are attention and which are recurrent is the row's {@link Layers} rule, from the
 * keys first as llama.cpp's loaders decide it; the tensors ({@link #KV_TENSORS}, {@link
 * StateKind#marker}, {@link #EXPERT_TENSORS}) must then be those of each block's kind. The table
 * also says what the tensors cannot: the sliding-window pattern, which state formula a recurrent
 * layer uses, and which architectures are refused and why.
 */
public final class ArchTable {

  /** Whether the engine runs an architecture, and if not, the feature that stops it. */
  public enum Support {
    /** Planned and run. */
    RUNS,
    /** Multi-head latent attention: K and V are one compressed latent, which no KV format holds. */
    MLA,
    /** Encoder-only (embeddings): no causal decoding, nothing to generate. */
    ENCODER,
    /** Recurrent only: no attention layer, so no KV pool for the engine to run. */
    RECURRENT_ONLY
  }

  /**
   * The per-sequence state of a recurrent layer (llama.cpp's {@code n_embd_r()} / {@code
   * n_embd_s()} in src/llama-hparams.cpp, f32 cells as its default cache types).
   */
  public enum StateKind {
    /** No recurrent layer. */
    NONE("", List.of()),
    /**
     * Mamba-style selective state and Gated DeltaNet (qwen3next, qwen35): convolution state (K − 1)
     * × (d_inner + 2 × n_group × d_state) floats, recurrent state d_state × d_inner floats.
     */
    SSM(
        "ssm_conv1d.weight",
        List.of("ssm.conv_kernel", "ssm.inner_size", "ssm.state_size", "ssm.group_count")),
    /** LFM2's short convolution: n_embd × (L_cache − 1) floats of convolution state, no other. */
    SHORT_CONV("shortconv.conv.weight", List.of("shortconv.l_cache", "embedding_length"));

    /** The tensor whose presence makes a block a recurrent layer of this kind. */
    public final String marker;

    /** The metadata keys (after "{arch}.") the formula reads; every one is required. */
    public final List<String> keys;

    StateKind(String marker, List<String> keys) {
      this.marker = marker;
      this.keys = keys;
    }
  }

  /**
   * Which blocks of the main model are attention (KV) layers and which are recurrent, decided as
   * the architecture's llama.cpp loader decides it (its {@code load_arch_hparams}: the pattern
   * comes from the keys; only then does {@code load_arch_tensors} read that layer kind's tensors).
   * A tensor name means what its architecture's loader says: in qwen3next/qwen35/qwen35moe the
   * linear-attention (Gated DeltaNet) layers carry {@code attn_qkv.weight} (current converter) or
   * {@code ssm_in.weight} (older files), so {@code attn_qkv} makes an attention layer only where
   * the pattern puts one.
   */
  public enum Layers {
    /** Not in the table: a block is an attention layer iff it holds a {@link #KV_TENSORS} one. */
    TENSORS,
    /** Every block is an attention layer (llama.cpp loads attention in each: llama, qwen3, …). */
    ALL,
    /**
     * {@code {arch}.full_attention_interval} (llama.cpp's default 4 when absent): block n is an
     * attention layer iff (n + 1) mod interval = 0; the others are recurrent (qwen3next, qwen35,
     * qwen35moe). MTP blocks are attention.
     */
    INTERVAL,
    /**
     * {@code {arch}.attention.head_count_kv} per block: a block given 0 KV heads is recurrent, the
     * others attention (lfm2, lfm2moe, granitehybrid, jamba; a single value: all attention).
     */
    KV_HEADS
  }

  /**
   * One architecture.
   *
   * @param name {@code general.architecture}
   * @param support whether it runs
   * @param swaPattern which layers use the sliding window when {@code
   *     {arch}.attention.sliding_window} is set: 0 none (the key is ignored, as llama.cpp ignores
   *     it), 1 every layer, N &gt; 1 llama.cpp's {@code set_swa_pattern(N)} (layer i slides iff i
   *     mod N &lt; N − 1)
   * @param state the recurrent layers' state formula
   * @param layers which blocks are attention layers
   * @param family the published models it stands for (docs/MODELS.md)
   */
  public record Arch(
      String name,
      Support support,
      int swaPattern,
      StateKind state,
      Layers layers,
      String family) {}

  /**
   * The tensors an attention (KV) layer holds, one of them: separate K, or fused Q/K/V (llama.cpp's
   * {@code create_tensor_qkv}, which every architecture of the table uses for its attention
   * layers). Where a block is an attention layer is {@link Layers}' decision, not these names'.
   */
  public static final List<String> KV_TENSORS = List.of("attn_k.weight", "attn_qkv.weight");

  /**
   * The {@link #KV_TENSORS} a linear-attention (Gated DeltaNet) layer of a {@link Layers#INTERVAL}
   * architecture carries too: its fused Q/K/V input projection (llama.cpp's qwen3next/qwen35
   * loaders; older files carry {@code ssm_in.weight} instead). Any other KV tensor there is damage.
   */
  public static final List<String> LINEAR_ATTENTION_KV_TENSORS = List.of("attn_qkv.weight");

  /**
   * Expert tensors ("blk.N." + name): separate gate/up/down, or gate and up merged (current
   * llama.cpp for Qwen3-30B-A3B and gpt-oss). Their last dimension is the expert count; {@code
   * .bias} and {@code .scale} tensors of the same names belong to the experts too.
   */
  public static final List<String> EXPERT_TENSORS =
      List.of("ffn_gate_exps", "ffn_up_exps", "ffn_down_exps", "ffn_gate_up_exps");

  /**
   * The legacy one-tensor-per-expert layout of early Mixtral files: "blk.N.ffn_gate.E.weight",
   * "ffn_up.E", "ffn_down.E" for E in 0..expert_count-1 (llama.cpp still loads it).
   */
  public static final List<String> LEGACY_EXPERT_TENSORS =
      List.of("ffn_gate", "ffn_up", "ffn_down");

  /** The key naming a model's MTP (next-token prediction) blocks: the last N of block_count. */
  public static final String NEXTN_KEY = "nextn_predict_layers";

  /** The key whose presence means multi-head latent attention, whatever the architecture. */
  public static final String MLA_KEY = "attention.kv_lora_rank";

  /** The rows, by name. Sources: llama.cpp src/llama-arch.cpp and src/llama-model.cpp. */
  public static final List<Arch> ARCHES =
      List.of(
          new Arch("llama", RUNS, 1, NONE, ALL, "Llama 3.x, Mistral 7B, Mixtral"),
          new Arch("qwen2", RUNS, 0, NONE, ALL, "Qwen2.5"),
          new Arch("qwen2moe", RUNS, 0, NONE, ALL, "Qwen1.5-MoE, Qwen2-57B-A14B"),
          new Arch("qwen3", RUNS, 0, NONE, ALL, "Qwen3 dense"),
          new Arch("qwen3moe", RUNS, 0, NONE, ALL, "Qwen3-30B-A3B, Qwen3-235B-A22B"),
          new Arch("qwen3next", RUNS, 0, SSM, INTERVAL, "Qwen3-Next-80B-A3B"),
          new Arch("qwen35", RUNS, 0, SSM, INTERVAL, "Qwen3.5 dense hybrids"),
          new Arch("qwen35moe", RUNS, 0, SSM, INTERVAL, "Qwen3.5/3.6 MoE hybrids"),
          new Arch("gpt-oss", RUNS, 2, NONE, ALL, "gpt-oss-20b, gpt-oss-120b"),
          new Arch("gemma3", RUNS, 6, NONE, ALL, "Gemma 3"),
          new Arch("gemma2", RUNS, 2, NONE, ALL, "Gemma 2"),
          new Arch("lfm2", RUNS, 0, SHORT_CONV, KV_HEADS, "LFM2"),
          new Arch("lfm2moe", RUNS, 0, SHORT_CONV, KV_HEADS, "LFM2-8B-A1B"),
          // llama.cpp disables Phi-3's sliding window ("Phi SWA is currently disabled"): full.
          new Arch("phi3", RUNS, 0, NONE, ALL, "Phi-3, Phi-3.5, Phi-4-mini"),
          new Arch("phi2", RUNS, 0, NONE, ALL, "Phi-2"),
          new Arch("mistral3", RUNS, 0, NONE, ALL, "Mistral Small 3.x"),
          new Arch("granitehybrid", RUNS, 0, SSM, KV_HEADS, "Granite 4.0-H"),
          new Arch("jamba", RUNS, 0, SSM, KV_HEADS, "Jamba"),
          new Arch("deepseek2", MLA, 0, NONE, TENSORS, "DeepSeek-V2/V3, Kimi K2"),
          new Arch("minicpm3", MLA, 0, NONE, TENSORS, "MiniCPM3"),
          new Arch("bert", ENCODER, 0, NONE, TENSORS, "BERT embeddings"),
          new Arch("nomic-bert", ENCODER, 0, NONE, TENSORS, "nomic-embed"),
          new Arch("nomic-bert-moe", ENCODER, 0, NONE, TENSORS, "nomic-embed v2"),
          new Arch("jina-bert-v2", ENCODER, 0, NONE, TENSORS, "jina embeddings v2"),
          new Arch("modern-bert", ENCODER, 0, NONE, TENSORS, "ModernBERT"),
          new Arch("t5encoder", ENCODER, 0, NONE, TENSORS, "T5 encoders"),
          new Arch("mamba", RECURRENT_ONLY, 0, SSM, TENSORS, "Mamba"),
          new Arch("mamba2", RECURRENT_ONLY, 0, SSM, TENSORS, "Mamba-2"),
          new Arch("rwkv6", RECURRENT_ONLY, 0, NONE, TENSORS, "RWKV-6"),
          new Arch("rwkv7", RECURRENT_ONLY, 0, NONE, TENSORS, "RWKV-7"));

  private ArchTable() {}

  /** The row of an architecture, or null when the table has none (generic rules apply). */
  public static Arch find(String name) {
    for (Arch a : ARCHES) {
      if (a.name().equals(name)) {
        return a;
      }
    }
    return null;
  }

  /** Whether layer {@code i} slides under a pattern (see {@link Arch#swaPattern}). */
  public static boolean slides(int pattern, int i) {
    return pattern == 1 || (pattern > 1 && i % pattern < pattern - 1);
  }

  /**
   * Per-sequence state bytes of one recurrent layer (f32 cells).
   *
   * @param v the values of {@link StateKind#keys}, in order
   */
  public static long stateBytes(StateKind kind, long[] v) {
    return switch (kind) {
      case NONE -> 0;
      case SSM -> {
        long conv = v[0] > 0 ? v[0] - 1 : 0;
        long r = Math.multiplyExact(conv, Math.addExact(v[1], 2 * v[3] * v[2]));
        long s = Math.multiplyExact(v[2], v[1]);
        yield Math.multiplyExact(4, Math.addExact(r, s));
      }
      case SHORT_CONV -> Math.multiplyExact(4, Math.multiplyExact(v[1], v[0] > 0 ? v[0] - 1 : 0));
    };
  }
}
