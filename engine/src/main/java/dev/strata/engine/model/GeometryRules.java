package dev.strata.engine.model;

import dev.strata.engine.model.ArchTable.Arch;
import dev.strata.engine.model.ArchTable.StateKind;
import dev.strata.engine.model.ArchTable.Support;
import dev.strata.engine.model.GgufException.Kind;
import dev.strata.engine.text.Clip;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The geometry rules of docs/ENGINE-CONTRACT.md and docs/MODELS.md, applied to the headers of a
 * model's shards (in order; the first holds the metadata, as gguf-split writes it). The
 * per-architecture facts come from {@link ArchTable}.
 */
public final class GeometryRules {
  /** What an architecture name looks like ("qwen3next", "gpt-oss"); it prefixes metadata keys. */
  private static final Pattern ARCH = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

  private GeometryRules() {}

  /** Derives the geometry; a model that breaks a rule is a {@link GgufException}. */
  public static ModelGeometry derive(List<GgufFile> shards) {
    GgufFile f = shards.getFirst();
    String file = f.file();
    long tensorCount = 0;
    for (GgufFile s : shards) {
      tensorCount += s.tensors().size();
    }
    if (tensorCount == 0) {
      throw new GgufException(
          Kind.NOT_A_MODEL,
          file,
          "holds no tensors: a tokenizer file, not model weights; pass the model's .gguf file");
    }
    String arch = architecture(f);
    Arch row = ArchTable.find(arch);
    refuseUnsupported(f, arch, row);
    int blockCount = (int) HeaderCounts.required(f, arch + ".block_count", 1);
    long context = f.unsigned(arch + ".context_length");
    if (context < 1) {
      throw new GgufException(
          context < 0 ? Kind.NOT_A_MODEL : Kind.INCONSISTENT,
          file,
          context < 0
              ? "has no " + arch + ".context_length; not a model this toolkit can plan for"
              : arch + ".context_length is 0; the file is damaged");
    }
    int experts = (int) HeaderCounts.small(f, arch + ".expert_count", 0);
    int used = (int) HeaderCounts.small(f, arch + ".expert_used_count", 0);
    if (experts == 0) {
      used = 0;
    } else if (used < 1 || used > experts) {
      throw new GgufException(
          Kind.INCONSISTENT,
          file,
          arch
              + ".expert_used_count is "
              + used
              + " but it must be 1.."
              + experts
              + " (the expert count); the file is damaged");
    }
    int blocks = mainBlocks(shards, arch, blockCount);
    int allBlocks = blocks + (int) HeaderCounts.small(f, arch + "." + ArchTable.NEXTN_KEY, 0);

    LayerPattern.Seen seen = new LayerPattern.Seen();
    TreeSet<Integer> drafterKv = new TreeSet<>();
    ExpertTensors exps = new ExpertTensors(arch, experts);
    long dense = 0;
    long drafter = 0;
    for (GgufFile shard : shards) {
      for (GgufTensor t : shard.tensors()) {
        int restAt = TensorNames.blockRest(t.name());
        if (restAt < 0) {
          dense = add(dense, t.bytes(), shard.file());
          continue;
        }
        int layer = TensorNames.blockLayer(t.name(), restAt);
        if (layer >= allBlocks) {
          throw GgufException.tensorBeyond(
              shard.file(), t.name(), arch + ".block_count", blockCount);
        }
        String rest = t.name().substring(restAt);
        if (layer >= blocks) {
          drafter = add(drafter, t.bytes(), shard.file());
          if (ArchTable.KV_TENSORS.contains(rest)) {
            drafterKv.add(layer);
          }
          continue;
        }
        if (exps.take(shard, t, layer, rest)) {
          continue;
        }
        if (ArchTable.KV_TENSORS.contains(rest)) {
          seen.kvTensor(layer, rest);
        }
        for (StateKind k : StateKind.values()) {
          if (k != StateKind.NONE && k.marker.equals(rest)) {
            seen.marked().put(layer, k);
          }
        }
        dense = add(dense, t.bytes(), shard.file());
      }
    }
    long expertBytes = exps.slotBytes(file);
    if (experts > 0 && exps.layers() == 0) {
      throw new GgufException(
          Kind.INCONSISTENT,
          file,
          arch
              + ".expert_count is "
              + experts
              + " but no block holds expert tensors (ffn_gate_exps/ffn_up_exps/ffn_down_exps,"
              + " ffn_gate_up_exps or ffn_gate.E/ffn_up.E/ffn_down.E); the model is incomplete");
    }
    LayerPattern.Kinds kinds = LayerPattern.classify(f, arch, row, blocks, blockCount, seen);
    TreeSet<Integer> qsa = kinds.attention();
    TreeMap<Integer, StateKind> recurrent = kinds.recurrent();
    if (qsa.isEmpty()) {
      throw new GgufException(
          Kind.UNSUPPORTED,
          file,
          arch
              + " has no attention layer (no blk.N.attn_k or attn_qkv tensor); the engine runs"
              + " models with attention KV pools (docs/MODELS.md lists them)");
    }

    TreeSet<Integer> kvLayers = new TreeSet<>(qsa);
    kvLayers.addAll(drafterKv);
    long kv = HeaderCounts.perLayer(f, arch + ".attention.head_count_kv", blockCount, kvLayers);
    long heads = HeaderCounts.perLayer(f, arch + ".attention.head_count", blockCount, kvLayers);
    if (kv < 0) {
      kv = heads; // llama.cpp's default: as many KV heads as heads
    }
    if (kv == 0 && f.get(arch + ".attention.head_count_kv") != null) {
      throw new GgufException(
          Kind.INCONSISTENT,
          file,
          arch
              + ".attention.head_count_kv is 0 but the model has attention layers, which need at"
              + " least one KV head; the file is damaged");
    }
    if (kv < 1) {
      throw new GgufException(
          Kind.NOT_A_MODEL,
          file,
          "has attention layers but no "
              + arch
              + ".attention.head_count_kv; not a model this toolkit can plan for");
    }
    int headDim = headSize(f, arch, "key_length", heads);
    int headDimV = headSize(f, arch, "value_length", heads);

    long window =
        HeaderCounts.bounded(f, arch + ".attention.sliding_window", 0, HeaderCounts.MAX_WINDOW);
    int pattern = row == null ? 0 : row.swaPattern();
    List<Integer> swa = new ArrayList<>();
    for (int layer : qsa) {
      if (window > 0 && ArchTable.slides(pattern, layer)) {
        swa.add(layer);
      }
    }

    long statePerLayer = 0;
    if (!recurrent.isEmpty()) {
      StateKind kind = recurrent.firstEntry().getValue();
      if (recurrent.containsValue(kind == StateKind.SSM ? StateKind.SHORT_CONV : StateKind.SSM)) {
        throw new GgufException(
            Kind.INCONSISTENT,
            file,
            "mixes ssm_conv1d and shortconv.conv layers; the file is damaged");
      }
      long[] v = new long[kind.keys.size()];
      for (int i = 0; i < v.length; i++) {
        String key = arch + "." + kind.keys.get(i);
        v[i] = HeaderCounts.bounded(f, key, -1, HeaderCounts.MAX_WINDOW);
        if (v[i] < 0) {
          throw new GgufException(
              Kind.NOT_A_MODEL,
              file,
              "has recurrent layers (blk.N."
                  + kind.marker
                  + ") but no "
                  + key
                  + "; not a model this toolkit can plan for");
        }
      }
      statePerLayer = ArchTable.stateBytes(kind, v);
    }
    return new ModelGeometry(
        arch,
        blocks,
        new ArrayList<>(qsa),
        (int) kv,
        headDim,
        experts,
        used,
        exps.layers(),
        expertBytes,
        dense,
        context,
        shards.size(),
        headDimV,
        swa,
        swa.isEmpty() ? 0 : window,
        recurrent.size(),
        statePerLayer,
        allBlocks - blocks,
        new ArrayList<>(drafterKv),
        drafter,
        ModelWidths.read(shards, arch));
  }

  private static String architecture(GgufFile f) {
    GgufValue archValue = f.get("general.architecture");
    if (archValue == null) {
      throw new GgufException(
          Kind.NOT_A_MODEL,
          f.file(),
          "has no general.architecture: not a model (a vocabulary or adapter file?); pass the"
              + " model's first shard");
    }
    String arch = f.string("general.architecture");
    if (arch == null || !ARCH.matcher(arch).matches()) {
      throw new GgufException(
          Kind.INCONSISTENT,
          f.file(),
          "general.architecture is "
              + (arch == null ? GgufFile.describe(archValue) : "\"" + Clip.clip(arch) + "\"")
              + ", not an architecture name; the file is damaged");
    }
    return arch;
  }

  private static void refuseUnsupported(GgufFile f, String arch, Arch row) {
    String why = null;
    if (f.get(arch + "." + ArchTable.MLA_KEY) != null
        || (row != null && row.support() == Support.MLA)) {
      why =
          " uses multi-head latent attention (K and V share one compressed latent), which no"
              + " Strata KV format holds; the engine runs per-head K/V attention (llama, qwen3,"
              + " qwen3moe, qwen3next, gpt-oss, gemma3, … in docs/MODELS.md)";
    } else if (row != null && row.support() == Support.ENCODER) {
      why =
          " is an encoder-only (embedding) model: it generates no text; the engine runs decoder"
              + " models (docs/MODELS.md)";
    } else if (row != null && row.support() == Support.RECURRENT_ONLY) {
      why =
          " is recurrent only (no attention layer, so no KV pool); the engine runs attention"
              + " models and attention/recurrent hybrids (qwen3next, qwen35, lfm2; docs/MODELS.md)";
    }
    if (why != null) {
      throw new GgufException(Kind.UNSUPPORTED, f.file(), Clip.clip(arch) + why);
    }
  }

  /**
   * The blocks of the main model. With {@code nextn_predict_layers = n}, llama.cpp's converters
   * count the n MTP blocks in block_count (they are its last n); a file whose tensors go past
   * block_count counts them after it. Either way the drafter is the n blocks after the main ones.
   */
  private static int mainBlocks(List<GgufFile> shards, String arch, int blockCount) {
    GgufFile f = shards.getFirst();
    long nextn = HeaderCounts.small(f, arch + "." + ArchTable.NEXTN_KEY, 0);
    if (nextn == 0) {
      return blockCount;
    }
    int highest = -1;
    for (GgufFile s : shards) {
      for (GgufTensor t : s.tensors()) {
        int restAt = TensorNames.blockRest(t.name());
        if (restAt >= 0) {
          highest = Math.max(highest, TensorNames.blockLayer(t.name(), restAt));
        }
      }
    }
    if (highest >= blockCount) {
      return blockCount;
    }
    if (nextn >= blockCount) {
      throw new GgufException(
          Kind.INCONSISTENT,
          f.file(),
          arch
              + "."
              + ArchTable.NEXTN_KEY
              + " is "
              + nextn
              + " but "
              + arch
              + ".block_count is only "
              + blockCount
              + "; the file is damaged");
    }
    return blockCount - (int) nextn;
  }

  /** K or V head size: the key, else embedding_length / head_count (llama.cpp's default). */
  private static int headSize(GgufFile f, String arch, String key, long heads) {
    long dim = HeaderCounts.small(f, arch + ".attention." + key, -1);
    if (dim == 0) {
      throw new GgufException(
          Kind.INCONSISTENT,
          f.file(),
          arch
              + ".attention."
              + key
              + " is 0, but an attention head needs at least one value; the file is damaged");
    }
    if (dim < 0) {
      long width = f.unsigned(arch + ".embedding_length");
      if (width > 0 && heads > 0 && width % heads == 0) {
        dim = width / heads;
      }
    }
    if (dim < 1) {
      throw new GgufException(
          Kind.NOT_A_MODEL,
          f.file(),
          "has attention layers but no "
              + arch
              + ".attention."
              + key
              + " (nor embedding_length and head_count to derive it); not a model this toolkit"
              + " can plan for");
    }
    return (int) dim;
  }

  private static long add(long a, long b, String file) {
    try {
      return Math.addExact(a, b);
    } catch (ArithmeticException e) {
      throw new GgufException(
          Kind.ABSURD_COUNT, file, "tensor bytes overflow; the file is damaged");
    }
  }
}
