package dev.strata.engine.model;

import dev.strata.engine.model.ArchTable.Arch;
import dev.strata.engine.model.ArchTable.Layers;
import dev.strata.engine.model.ArchTable.StateKind;
import dev.strata.engine.model.GgufException.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which main blocks are attention (KV) layers and which recurrent: the row's {@link Layers} rule
 * applied as llama.cpp's loaders apply it, the pattern from the keys first, then each block's
 * tensors checked against its kind. strata-ref's {@code gguf.c} applies the same rule from {@code
 * archs.def}.
 */
final class LayerPattern {
  private LayerPattern() {}

  /**
   * What the tensor walk saw in the main blocks.
   *
   * @param kv blocks holding a {@link ArchTable#KV_TENSORS} tensor, with the names held
   * @param marked blocks holding a recurrent marker ({@link StateKind#marker}), by kind
   */
  record Seen(TreeMap<Integer, List<String>> kv, TreeMap<Integer, StateKind> marked) {
    Seen() {
      this(new TreeMap<>(), new TreeMap<>());
    }

    void kvTensor(int layer, String rest) {
      kv.computeIfAbsent(layer, k -> new ArrayList<>()).add(rest);
    }
  }

  /**
   * The layer kinds.
   *
   * @param attention the attention layers among the main blocks
   * @param recurrent the recurrent layers that carry a state marker, by kind
   */
  record Kinds(TreeSet<Integer> attention, TreeMap<Integer, StateKind> recurrent) {}

  static final String KV_NAMES = "blk.N.attn_k.weight or blk.N.attn_qkv.weight";

  /** Classifies the {@code blocks} main blocks of a model whose first shard is {@code f}. */
  static Kinds classify(GgufFile f, String arch, Arch row, int blocks, int blockCount, Seen seen) {
    Layers rule = row == null ? Layers.TENSORS : row.layers();
    TreeSet<Integer> withKv = new TreeSet<>(seen.kv().keySet());
    String file = f.file();
    return switch (rule) {
      case TENSORS -> {
        checkInterval(f, arch, blocks, withKv);
        yield new Kinds(withKv, seen.marked());
      }
      case ALL -> {
        TreeSet<Integer> attention = range(blocks);
        if (withKv.isEmpty()) {
          yield new Kinds(withKv, seen.marked()); // "has no attention layer", below
        }
        TreeSet<Integer> missing = minus(attention, withKv);
        if (!missing.isEmpty()) {
          throw GgufException.inconsistent(
              file,
              ("%s has an attention layer in every block (as llama.cpp's %s loader reads it)"
                      + " but %s no %s; the model is incomplete")
                  .formatted(arch, arch, blocksOf(missing), KV_NAMES));
        }
        strayMarkers(file, arch + " has no recurrent layer", attention, seen.marked());
        yield new Kinds(attention, new TreeMap<>());
      }
      case INTERVAL -> {
        long interval = f.unsigned(arch + ".full_attention_interval");
        String key =
            interval < 0
                ? arch + ".full_attention_interval (absent: llama.cpp's default 4)"
                : arch + ".full_attention_interval " + interval;
        if (interval == 0) {
          throw zeroInterval(file, arch);
        }
        TreeSet<Integer> attention = everyNth(blocks, interval < 0 ? 4 : interval);
        if (attention.isEmpty()) {
          throw new GgufException(
              Kind.UNSUPPORTED,
              file,
              key
                  + " puts no attention layer in its "
                  + blocks
                  + " blocks; the engine runs models with attention KV pools (docs/MODELS.md)");
        }
        TreeSet<Integer> missing = minus(attention, withKv);
        if (!missing.isEmpty()) {
          throw damaged(
              file,
              "%s means attention layers %s but %s no %s"
                  .formatted(key, brief(attention), blocksOf(missing), KV_NAMES));
        }
        TreeSet<Integer> linear = minus(range(blocks), attention);
        TreeSet<Integer> stray = new TreeSet<>();
        for (int n : linear) {
          for (String t : seen.kv().getOrDefault(n, List.of())) {
            if (!ArchTable.LINEAR_ATTENTION_KV_TENSORS.contains(t)) {
              stray.add(n);
            }
          }
        }
        if (!stray.isEmpty()) {
          throw damaged(
              file,
              ("%s means linear-attention (recurrent) layers %s"
                      + " but blk.N.attn_k.weight exists for %s")
                  .formatted(key, brief(linear), brief(stray)));
        }
        strayMarkers(
            file, key + " means attention layers " + brief(attention), attention, seen.marked());
        yield new Kinds(attention, onlyIn(linear, seen.marked()));
      }
      case KV_HEADS -> {
        String key = arch + ".attention.head_count_kv";
        TreeSet<Integer> attention = range(blocks);
        GgufValue v = f.get(key);
        if (v instanceof GgufValue.ArrayValue a) {
          if (!a.complete() || a.length() != blockCount || !a.elementType().isInteger()) {
            HeaderCounts.perLayer(f, key, blockCount, new TreeSet<>()); // throws its message
          }
          for (int n = 0; n < blocks; n++) {
            if (((GgufValue.IntValue) a.elements().get(n)).bits() == 0) {
              attention.remove(n);
            }
          }
        }
        if (attention.isEmpty()) {
          yield new Kinds(attention, seen.marked()); // "has no attention layer", below
        }
        TreeSet<Integer> missing = minus(attention, withKv);
        if (!missing.isEmpty()) {
          throw damaged(
              file,
              "%s gives %s KV heads but %s no %s"
                  .formatted(
                      key,
                      listed(missing),
                      missing.size() == 1 ? "it has" : "they have",
                      KV_NAMES));
        }
        TreeSet<Integer> recurrent = minus(range(blocks), attention);
        TreeSet<Integer> stray = new TreeSet<>(withKv);
        stray.retainAll(recurrent);
        if (!stray.isEmpty()) {
          throw damaged(
              file,
              "%s gives %s 0 KV heads (recurrent layers) but %s %s"
                  .formatted(
                      key, listed(stray), stray.size() == 1 ? "it holds" : "they hold", KV_NAMES));
        }
        strayMarkers(
            file, key + " gives attention layers " + brief(attention), attention, seen.marked());
        yield new Kinds(attention, onlyIn(recurrent, seen.marked()));
      }
    };
  }

  /** A layer pattern the file contradicts: {@code what}, then "; the model is damaged". */
  private static GgufException damaged(String file, String what) {
    return GgufException.inconsistent(file, what + "; the model is damaged");
  }

  private static void strayMarkers(
      String file, String why, TreeSet<Integer> attention, TreeMap<Integer, StateKind> marked) {
    for (var e : marked.entrySet()) {
      if (attention.contains(e.getKey())) {
        throw damaged(
            file,
            "%s but blk.%s.%s (a recurrent layer's) exists"
                .formatted(why, e.getKey(), e.getValue().marker));
      }
    }
  }

  /** The generic rule's check: an interval key must agree with the attention tensors. */
  private static void checkInterval(GgufFile f, String arch, int blocks, TreeSet<Integer> qsa) {
    long interval = f.unsigned(arch + ".full_attention_interval");
    if (interval == 0) {
      throw zeroInterval(f.file(), arch);
    }
    if (interval < 0) {
      return;
    }
    TreeSet<Integer> expected = everyNth(blocks, interval);
    if (!expected.equals(qsa)) {
      throw damaged(
          f.file(),
          "%s.full_attention_interval %s means attention layers %s but %s exists for %s"
              .formatted(arch, interval, brief(expected), KV_NAMES, brief(qsa)));
    }
  }

  private static GgufException zeroInterval(String file, String arch) {
    return GgufException.inconsistent(
        file, arch + ".full_attention_interval is 0; the file is damaged");
  }

  /** The blocks n of {@code blocks} with (n + 1) mod interval = 0 (llama.cpp's interval rule). */
  private static TreeSet<Integer> everyNth(int blocks, long interval) {
    TreeSet<Integer> s = new TreeSet<>();
    for (int n = 0; n < blocks; n++) {
      if ((n + 1) % interval == 0) {
        s.add(n);
      }
    }
    return s;
  }

  private static TreeMap<Integer, StateKind> onlyIn(
      TreeSet<Integer> layers, TreeMap<Integer, StateKind> marked) {
    TreeMap<Integer, StateKind> m = new TreeMap<>(marked);
    m.keySet().retainAll(layers);
    return m;
  }

  private static TreeSet<Integer> range(int blocks) {
    TreeSet<Integer> s = new TreeSet<>();
    for (int n = 0; n < blocks; n++) {
      s.add(n);
    }
    return s;
  }

  private static TreeSet<Integer> minus(TreeSet<Integer> a, TreeSet<Integer> b) {
    TreeSet<Integer> s = new TreeSet<>(a);
    s.removeAll(b);
    return s;
  }

  private static String listed(TreeSet<Integer> layers) {
    return layers.size() == 1 ? "block " + layers.first() : "blocks " + brief(layers);
  }

  private static String blocksOf(TreeSet<Integer> layers) {
    return listed(layers) + (layers.size() == 1 ? " has" : " have");
  }

  static String brief(TreeSet<Integer> layers) {
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
