package dev.strata.engine.model;

import dev.strata.engine.model.GgufException.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The geometry rules of docs/ENGINE-CONTRACT.md, applied to the headers of a model's shards (in
 * order; the first holds the metadata, as gguf-split writes it).
 */
public final class GeometryRules {
  /** Most blocks, experts, heads or head size taken for real; beyond is a damaged file. */
  static final long MAX_SMALL = 1 << 16;

  /** What an architecture name looks like ("qwen3next", "gpt-oss"); it prefixes metadata keys. */
  private static final Pattern ARCH = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

  private static final Pattern BLOCK = Pattern.compile("blk\\.(\\d{1,9})\\.(.+)");

  /** The three tensors of an expert FFN; their last dimension is the expert count. */
  static final List<String> EXPERT_TENSORS =
      List.of("ffn_gate_exps.weight", "ffn_up_exps.weight", "ffn_down_exps.weight");

  private GeometryRules() {}

  /** Derives the geometry; a model that breaks a rule is a {@link GgufException}. */
  public static ModelGeometry derive(List<GgufFile> shards) {
    GgufFile f = shards.getFirst();
    String file = f.file();
    GgufValue archValue = f.get("general.architecture");
    if (archValue == null) {
      throw new GgufException(
          Kind.NOT_A_MODEL,
          file,
          "has no general.architecture: not a model (a vocabulary or adapter file?); pass the"
              + " model's first shard");
    }
    String arch = f.string("general.architecture");
    if (arch == null || !ARCH.matcher(arch).matches()) {
      throw new GgufException(
          Kind.INCONSISTENT,
          file,
          "general.architecture is "
              + (arch == null
                  ? GgufFile.describe(archValue)
                  : "\"" + GgufException.clip(arch) + "\"")
              + ", not an architecture name; the file is damaged");
    }
    int blocks = (int) required(f, arch + ".block_count", 1);
    long context = f.unsigned(arch + ".context_length");
    if (context < 1) {
      throw new GgufException(
          context < 0 ? Kind.NOT_A_MODEL : Kind.INCONSISTENT,
          file,
          context < 0
              ? "has no " + arch + ".context_length; not a model this toolkit can plan for"
              : arch + ".context_length is 0; the file is damaged");
    }
    int experts = (int) small(f, arch + ".expert_count", 0);
    int used = (int) small(f, arch + ".expert_used_count", 0);
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

    TreeSet<Integer> qsa = new TreeSet<>();
    TreeMap<Integer, long[]> expertLayers = new TreeMap<>();
    long dense = 0;
    for (GgufFile shard : shards) {
      for (GgufTensor t : shard.tensors()) {
        Matcher m = BLOCK.matcher(t.name());
        if (m.matches()) {
          int layer = Integer.parseInt(m.group(1));
          if (layer >= blocks) {
            throw new GgufException(
                Kind.INCONSISTENT,
                shard.file(),
                "holds tensor "
                    + GgufException.clip(t.name())
                    + " but "
                    + arch
                    + ".block_count is "
                    + blocks
                    + "; the file is damaged");
          }
          String rest = m.group(2);
          int slot = EXPERT_TENSORS.indexOf(rest);
          if (slot >= 0) {
            checkExpertShape(shard, t, arch, experts);
            expertLayers.computeIfAbsent(layer, k -> new long[] {-1, -1, -1})[slot] =
                t.bytes() / experts;
            continue;
          }
          if (rest.equals("attn_k.weight")) {
            qsa.add(layer);
          }
        }
        dense = add(dense, t.bytes(), shard.file());
      }
    }

    long expertBytes = 0;
    for (Map.Entry<Integer, long[]> e : expertLayers.entrySet()) {
      long slot = 0;
      for (int i = 0; i < 3; i++) {
        long b = e.getValue()[i];
        if (b < 0) {
          throw new GgufException(
              Kind.INCONSISTENT,
              file,
              "block "
                  + e.getKey()
                  + " has expert tensors but no blk."
                  + e.getKey()
                  + "."
                  + EXPERT_TENSORS.get(i)
                  + "; the model is incomplete");
        }
        slot += b;
      }
      // Layers may be quantized differently; an arena slot must hold the largest.
      expertBytes = Math.max(expertBytes, slot);
    }
    if (experts > 0 && expertLayers.isEmpty()) {
      throw new GgufException(
          Kind.INCONSISTENT,
          file,
          arch
              + ".expert_count is "
              + experts
              + " but no block holds ffn_gate_exps/ffn_up_exps/ffn_down_exps; the model is"
              + " incomplete");
    }

    long interval = f.unsigned(arch + ".full_attention_interval");
    if (interval == 0) {
      throw new GgufException(
          Kind.INCONSISTENT, file, arch + ".full_attention_interval is 0; the file is damaged");
    }
    if (interval > 0) {
      TreeSet<Integer> expected = new TreeSet<>();
      for (int n = 0; n < blocks; n++) {
        if ((n + 1) % interval == 0) {
          expected.add(n);
        }
      }
      if (!expected.equals(qsa)) {
        throw new GgufException(
            Kind.INCONSISTENT,
            file,
            arch
                + ".full_attention_interval "
                + interval
                + " means attention layers "
                + brief(expected)
                + " but blk.N.attn_k.weight exists for "
                + brief(qsa)
                + "; the model is damaged");
      }
    }

    int kvHeads = 0;
    int headDim = 0;
    if (!qsa.isEmpty()) {
      long kv = perLayer(f, arch + ".attention.head_count_kv", blocks, qsa);
      long heads = perLayer(f, arch + ".attention.head_count", blocks, qsa);
      if (kv < 0) {
        kv = heads; // llama.cpp's default: as many KV heads as heads
      }
      if (kv < 1) {
        throw new GgufException(
            Kind.NOT_A_MODEL,
            file,
            "has attention layers but no "
                + arch
                + ".attention.head_count_kv; not a model this toolkit can plan for");
      }
      long dim = small(f, arch + ".attention.key_length", -1);
      if (dim < 0) {
        long width = f.unsigned(arch + ".embedding_length");
        if (width > 0 && heads > 0 && width % heads == 0) {
          dim = width / heads; // llama.cpp's default head size
        }
      }
      if (dim < 1) {
        throw new GgufException(
            Kind.NOT_A_MODEL,
            file,
            "has attention layers but no "
                + arch
                + ".attention.key_length; not a model this toolkit can plan for");
      }
      kvHeads = (int) kv;
      headDim = (int) dim;
    }
    return new ModelGeometry(
        arch,
        blocks,
        new ArrayList<>(qsa),
        kvHeads,
        headDim,
        experts,
        used,
        expertLayers.size(),
        expertBytes,
        dense,
        context,
        shards.size());
  }

  private static void checkExpertShape(GgufFile shard, GgufTensor t, String arch, int experts) {
    if (experts == 0) {
      throw new GgufException(
          Kind.INCONSISTENT,
          shard.file(),
          "holds expert tensor "
              + GgufException.clip(t.name())
              + " but has no "
              + arch
              + ".expert_count; the file is damaged");
    }
    if (t.dims().size() != 3 || t.dims().get(2) != experts) {
      throw new GgufException(
          Kind.INCONSISTENT,
          shard.file(),
          "tensor "
              + GgufException.clip(t.name())
              + " has shape "
              + t.dims()
              + " but its last dimension must be the expert count "
              + experts
              + "; the file is damaged");
    }
  }

  /** A required count in 1..min(limit); {@code min} is the smallest valid value. */
  private static long required(GgufFile f, String key, long min) {
    long v = f.unsigned(key);
    if (v < 0) {
      throw new GgufException(
          Kind.NOT_A_MODEL, f.file(), "has no " + key + "; not a model this toolkit can plan for");
    }
    if (v < min || v > MAX_SMALL) {
      throw new GgufException(
          v < min ? Kind.INCONSISTENT : Kind.ABSURD_COUNT,
          f.file(),
          key + " is " + v + " (expected " + min + ".." + MAX_SMALL + "); the file is damaged");
    }
    return v;
  }

  /** An optional count up to {@link #MAX_SMALL}, or {@code absent}. */
  private static long small(GgufFile f, String key, long absent) {
    long v = f.unsigned(key);
    if (v < 0) {
      return absent;
    }
    if (v > MAX_SMALL) {
      throw new GgufException(
          Kind.ABSURD_COUNT,
          f.file(),
          key + " is " + v + " (limit " + MAX_SMALL + "); the file is damaged");
    }
    return v;
  }

  /**
   * A per-layer count that is a scalar or an array of one value per block (hybrid models give 0 to
   * their non-attention layers); the attention layers must agree. -1 when absent.
   */
  private static long perLayer(GgufFile f, String key, int blocks, TreeSet<Integer> layers) {
    GgufValue v = f.get(key);
    if (!(v instanceof GgufValue.ArrayValue a)) {
      return small(f, key, -1);
    }
    if (!a.complete() || a.length() != blocks || !a.elementType().isInteger()) {
      throw new GgufException(
          Kind.INCONSISTENT,
          f.file(),
          key
              + " is "
              + GgufFile.describe(v)
              + ", expected one integer per block ("
              + blocks
              + ")");
    }
    long value = -1;
    for (int layer : layers) {
      long x = ((GgufValue.IntValue) a.elements().get(layer)).bits();
      if (x < 1 || x > MAX_SMALL || (value >= 0 && x != value)) {
        throw new GgufException(
            Kind.INCONSISTENT,
            f.file(),
            key
                + " gives attention layer "
                + layer
                + " the value "
                + x
                + (value >= 0 ? " but another attention layer " + value : "")
                + "; this toolkit plans one KV shape for every attention layer");
      }
      value = x;
    }
    return value;
  }

  private static long add(long a, long b, String file) {
    try {
      return Math.addExact(a, b);
    } catch (ArithmeticException e) {
      throw new GgufException(
          Kind.ABSURD_COUNT, file, "tensor bytes overflow; the file is damaged");
    }
  }

  private static String brief(TreeSet<Integer> layers) {
    if (layers.isEmpty()) {
      return "none";
    }
    List<Integer> l = new ArrayList<>(layers);
    if (l.size() <= 6) {
      return l.toString();
    }
    return "[" + l.get(0) + ", " + l.get(1) + ", " + l.get(2) + ", …, " + l.getLast() + "]";
  }
}
