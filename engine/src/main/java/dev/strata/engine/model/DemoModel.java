package dev.strata.engine.model;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.trust.OutputPlace;
import dev.strata.engine.trust.TrustedPath;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/**
 * The demo model: the seed's geometry (a Qwen3-Next-like MoE) as a GGUF split set of sparse zeros.
 * 48 blocks, full attention (QSA) in every 4th (3, 7, …, 47), Gated-DeltaNet linear attention in
 * the other 36; width 2048, 16 heads, 2 KV heads of 256; 512 experts of FFN 512 in TQ2_0, 10 used
 * per token, one shared expert; vocabulary 151,936; trained context 262,144. About 22.6 GB on
 * paper. There is no tokenizer: the reference engine runs synthetic tokens.
 *
 * <p>The MTP variant ({@code strata-setup demo-model --mtp}) adds what current llama.cpp converters
 * write for Qwen3-Next: {@code nextn_predict_layers = 1} and a 49th block {@code blk.48} counted in
 * block_count (a full-attention layer with its experts, plus {@code nextn.eh_proj}, {@code
 * nextn.enorm}, {@code nextn.hnorm}, {@code nextn.shared_head_norm}). The default demo has none, so
 * the golden matrix keeps its identity.
 */
public final class DemoModel {
  /** File name prefix: shards are {@code strata-demo-0000k-of-0000n.gguf}. */
  public static final String PREFIX = "strata-demo";

  /** general.name of the first shard: how an existing demo model is recognised. */
  public static final String NAME = "Strata demo (sparse zeros)";

  public static final String ARCHITECTURE = "qwen3next";
  public static final int BLOCKS = 48;
  public static final int FULL_ATTENTION_INTERVAL = 4;
  public static final int WIDTH = 2048;
  public static final int HEADS = 16;
  public static final int KV_HEADS = 2;
  public static final int HEAD_DIM = 256;
  public static final int EXPERTS = 512;
  public static final int EXPERTS_USED = 10;
  public static final int EXPERT_FFN = 512;
  public static final int SHARED_EXPERT_FFN = 512;
  public static final int VOCAB = 151_936;
  public static final int TRAINED_CONTEXT = 262_144;

  /** Most shards {@link #write} accepts. */
  public static final int MAX_SHARDS = 64;

  /** The Gated DeltaNet (linear attention) of the 36 other blocks. */
  private static final LinearAttention LINEAR = new LinearAttention(16, 32, 128, 4);

  private DemoModel() {}

  /**
   * The geometry of a Gated DeltaNet block as llama.cpp's qwen3next loader reads it.
   *
   * @param kHeads Q/K heads ({@code ssm.group_count})
   * @param vHeads V heads ({@code ssm.time_step_rank})
   * @param headDim values per head ({@code ssm.state_size})
   * @param convKernel the causal convolution's width ({@code ssm.conv_kernel})
   */
  private record LinearAttention(int kHeads, int vHeads, int headDim, int convKernel) {
    /** {@code ssm.inner_size}: V heads × head dim. */
    int inner() {
      return vHeads * headDim;
    }

    /** The {@code ssm.*} keys, in the order the converter writes them. */
    void putKeys(SequencedMap<String, GgufValue> m, String a) {
      m.put(a + "ssm.conv_kernel", GgufValue.u32(convKernel));
      m.put(a + "ssm.state_size", GgufValue.u32(headDim));
      m.put(a + "ssm.group_count", GgufValue.u32(kHeads));
      m.put(a + "ssm.time_step_rank", GgufValue.u32(vHeads));
      m.put(a + "ssm.inner_size", GgufValue.u32(inner()));
    }

    /**
     * A linear block's tensors after its attn_norm: ssm_in (the fused q, k, v, z projection),
     * ssm_ba, the convolution over q, k, v, the decay and the norm, ssm_out.
     */
    void addTensors(List<GgufWriter.Tensor> t, String b) {
      int qk = 2 * kHeads * headDim;
      t.add(GgufWriter.Tensor.of(b + "ssm_in.weight", GgmlType.Q8_0, WIDTH, qk + 2 * inner()));
      t.add(GgufWriter.Tensor.of(b + "ssm_ba.weight", GgmlType.Q8_0, WIDTH, 2 * vHeads));
      t.add(GgufWriter.Tensor.of(b + "ssm_conv1d.weight", GgmlType.F32, convKernel, qk + inner()));
      t.add(GgufWriter.Tensor.of(b + "ssm_dt.bias", GgmlType.F32, vHeads));
      t.add(GgufWriter.Tensor.of(b + "ssm_a", GgmlType.F32, vHeads));
      t.add(GgufWriter.Tensor.of(b + "ssm_norm.weight", GgmlType.F32, headDim));
      t.add(GgufWriter.Tensor.of(b + "ssm_out.weight", GgmlType.Q8_0, inner(), WIDTH));
    }
  }

  /** Whether block n (from 0) is a full-attention (QSA) block. */
  public static boolean isQsa(int n) {
    return (n + 1) % FULL_ATTENTION_INTERVAL == 0;
  }

  /** The metadata, as a converter would write it for this architecture. */
  public static SequencedMap<String, GgufValue> metadata() {
    return metadata(false);
  }

  /** The metadata; {@code mtp} adds the MTP block (block_count 49, nextn_predict_layers 1). */
  public static SequencedMap<String, GgufValue> metadata(boolean mtp) {
    String a = ARCHITECTURE + ".";
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("general.architecture", GgufValue.string(ARCHITECTURE));
    m.put("general.type", GgufValue.string("model"));
    m.put("general.name", GgufValue.string(NAME));
    m.put("general.quantization_version", GgufValue.u32(2));
    m.put("general.alignment", GgufValue.u32(GgufWriter.DEFAULT_ALIGNMENT));
    m.put(a + "block_count", GgufValue.u32(mtp ? BLOCKS + 1 : BLOCKS));
    if (mtp) {
      m.put(a + ArchTable.NEXTN_KEY, GgufValue.u32(1));
    }
    TinyModel.putAttention(
        m, a, TRAINED_CONTEXT, WIDTH, HEADS, KV_HEADS, HEAD_DIM, 10_000_000f, HEAD_DIM / 4);
    TinyModel.putExperts(m, a, EXPERTS, EXPERTS_USED, EXPERT_FFN);
    m.put(a + "expert_shared_feed_forward_length", GgufValue.u32(SHARED_EXPERT_FFN));
    m.put(a + "full_attention_interval", GgufValue.u32(FULL_ATTENTION_INTERVAL));
    LINEAR.putKeys(m, a);
    return m;
  }

  /** Every tensor, in file order (ggml shapes: dims[0] is the row). */
  public static List<GgufWriter.Tensor> tensors() {
    return tensors(false);
  }

  /** Every tensor; {@code mtp} adds block 48, the MTP drafter (attention, experts, nextn.*). */
  public static List<GgufWriter.Tensor> tensors(boolean mtp) {
    List<GgufWriter.Tensor> t = new ArrayList<>();
    t.add(GgufWriter.Tensor.of("token_embd.weight", GgmlType.Q8_0, WIDTH, VOCAB));
    for (int n = 0; n < BLOCKS + (mtp ? 1 : 0); n++) {
      String b = "blk." + n + ".";
      if (n == BLOCKS) {
        t.add(GgufWriter.Tensor.of(b + "nextn.eh_proj.weight", GgmlType.Q8_0, 2L * WIDTH, WIDTH));
        t.add(GgufWriter.Tensor.of(b + "nextn.enorm.weight", GgmlType.F32, WIDTH));
        t.add(GgufWriter.Tensor.of(b + "nextn.hnorm.weight", GgmlType.F32, WIDTH));
        t.add(GgufWriter.Tensor.of(b + "nextn.shared_head_norm.weight", GgmlType.F32, WIDTH));
      }
      t.add(GgufWriter.Tensor.of(b + "attn_norm.weight", GgmlType.F32, WIDTH));
      if (isQsa(n) || n == BLOCKS) {
        // q carries its output gate: 2 × heads × head_dim
        long q = (long) HEADS * HEAD_DIM;
        TinyModel.addAttention(t, b, GgmlType.Q8_0, WIDTH, 2 * q, KV_HEADS * HEAD_DIM, q);
        t.add(GgufWriter.Tensor.of(b + "attn_q_norm.weight", GgmlType.F32, HEAD_DIM));
        t.add(GgufWriter.Tensor.of(b + "attn_k_norm.weight", GgmlType.F32, HEAD_DIM));
      } else {
        LINEAR.addTensors(t, b);
      }
      t.add(GgufWriter.Tensor.of(b + "post_attention_norm.weight", GgmlType.F32, WIDTH));
      TinyModel.addExperts(t, b, GgmlType.TQ2_0, WIDTH, EXPERT_FFN, EXPERTS);
      t.add(GgufWriter.Tensor.of(b + "ffn_gate_inp_shexp.weight", GgmlType.F32, WIDTH));
      t.add(
          GgufWriter.Tensor.of(
              b + "ffn_gate_shexp.weight", GgmlType.Q8_0, WIDTH, SHARED_EXPERT_FFN));
      t.add(
          GgufWriter.Tensor.of(b + "ffn_up_shexp.weight", GgmlType.Q8_0, WIDTH, SHARED_EXPERT_FFN));
      t.add(
          GgufWriter.Tensor.of(
              b + "ffn_down_shexp.weight", GgmlType.Q8_0, SHARED_EXPERT_FFN, WIDTH));
    }
    t.add(GgufWriter.Tensor.of("output_norm.weight", GgmlType.F32, WIDTH));
    t.add(GgufWriter.Tensor.of("output.weight", GgmlType.Q8_0, WIDTH, VOCAB));
    return t;
  }

  /**
   * Writes the demo model into {@code dir} (created if missing) as {@code shards} files and returns
   * their paths. Earlier demo shards in {@code dir} are replaced; any other file in the way of a
   * shard name is refused, never overwritten.
   *
   * @throws StrataException (exit 2) when shards is not 1..64, dir is a file, or a file in the way
   *     is not a demo shard
   */
  public static List<Path> write(Path dir, int shards) throws IOException {
    return write(dir, shards, false);
  }

  /** Writes the demo model, with its MTP block when {@code mtp} (see the class comment). */
  public static List<Path> write(Path dir, int shards, boolean mtp) throws IOException {
    return write(dir, shards, mtp, "--out " + dir);
  }

  /**
   * Writes the demo model, with its MTP block when {@code mtp}. Before anything is written the
   * folder passes launch's ownership rule ({@link OutputPlace}: writable only by root or the user,
   * a sticky shared folder never the one that holds the shards); each shard is created new, never
   * through a symlink planted at its name.
   *
   * @param context where the folder came from, for messages ("--out DIR", "--dir DIR")
   * @throws dev.strata.engine.trust.TrustRefused (exit 3) when the folder, a folder above it, or
   *     something planted at a shard's {@code .partial} name fails the rule
   */
  public static List<Path> write(Path dir, int shards, boolean mtp, String context)
      throws IOException {
    if (shards < 1 || shards > MAX_SHARDS) {
      throw new StrataException(
          ExitCodes.USAGE, "--shards must be 1.." + MAX_SHARDS + " (got " + shards + ")");
    }
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new StrataException(
          ExitCodes.USAGE, dir + " is a file, not a folder; pass a folder for the demo model");
    }
    TrustedPath.Subject subject = TrustedPath.Subject.output("demo model", context);
    OutputPlace.prepare(dir.resolve(ShardName.format(PREFIX, 1, shards)), subject);
    // Everything this run replaces or removes: our target names and earlier demo shards.
    List<Path> inTheWay = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, PREFIX + "-*.gguf")) {
      for (Path p : ds) {
        ShardName sn = ShardName.parse(p.getFileName().toString());
        if (sn != null && sn.prefix().equals(PREFIX)) {
          inTheWay.add(p);
        }
      }
    }
    for (Path p : inTheWay) {
      if (!isDemoShard(p)) {
        throw new StrataException(
            ExitCodes.USAGE,
            p
                + " exists and is not a Strata demo shard; move it away or pick another --out"
                + " folder");
      }
    }
    List<Path> written =
        GgufWriter.writeSplit(dir, PREFIX, shards, metadata(mtp), tensors(mtp), subject, null);
    for (Path p : inTheWay) {
      if (!written.contains(p)) {
        Files.deleteIfExists(p); // a demo shard of another shard count
      }
    }
    return written;
  }

  /**
   * Whether a file is a shard this class wrote: a GGUF whose tensors all are demo tensors (same
   * name, type and shape), and whose metadata, if any, names the demo.
   */
  public static boolean isDemoShard(Path file) {
    GgufFile f;
    try {
      if (!Files.isRegularFile(file)) {
        return false;
      }
      f = GgufReader.readFile(file);
    } catch (GgufException e) {
      return false;
    }
    String name = f.string("general.name");
    if (f.get("general.architecture") != null && !NAME.equals(name)) {
      return false;
    }
    if (f.tensors().isEmpty() && !NAME.equals(name)) {
      return false;
    }
    Map<String, GgufWriter.Tensor> demo = new HashMap<>();
    for (GgufWriter.Tensor t : tensors(true)) {
      demo.put(t.name(), t);
    }
    for (GgufTensor t : f.tensors()) {
      GgufWriter.Tensor d = demo.get(t.name());
      if (d == null || d.type() != t.type() || !d.dims().equals(t.dims())) {
        return false;
      }
    }
    return true;
  }
}
