package dev.strata.engine.model;

import dev.strata.engine.model.ArchTable.Arch;
import dev.strata.engine.model.ArchTable.StateKind;

/**
 * Renders {@code engine/native/src/archs.def}: {@link ArchTable} and the GGUF reader's limits as a
 * C X-macro list, so strata-ref's {@code gguf.c} applies the same per-architecture rules, tensor
 * names, keys and limits as {@link GeometryRules}. A test compares the committed file with this
 * rendering (as {@code flags.def} is checked against the flag table).
 */
public final class ArchDef {
  private ArchDef() {}

  /** The whole of {@code archs.def}. */
  public static String render() {
    StringBuilder c = new StringBuilder();
    c.append("/* engine/native/src/archs.def: GENERATED from dev.strata.engine.model.ArchTable\n")
        .append(" * by ArchDef. Do not edit: change the table, then run the engine tests with\n")
        .append(" * -Dgolden.update=true.\n")
        .append(" *\n")
        .append(" * X-macro lists; define the macros you use before including, the others\n")
        .append(" * default to nothing:\n")
        .append(" *   STRATA_ARCH(name, support, swa_pattern, state, layers)   one architecture\n")
        .append(" *     support      STRATA_SUPPORT_RUNS | _MLA | _ENCODER | _RECURRENT_ONLY\n")
        .append(" *     swa_pattern  0 none, 1 every layer, N>1: layer i slides iff i % N < N-1\n")
        .append(" *     state        STRATA_STATE_NONE | _SSM | _SHORT_CONV\n")
        .append(" *     layers       which blocks are attention (ArchTable.Layers):\n")
        .append(" *                  STRATA_LAYERS_TENSORS | _ALL | _INTERVAL | _KV_HEADS\n")
        .append(" *   STRATA_KV_TENSOR(name)          \"blk.N.\" + name: an attention layer's K\n")
        .append(" *   STRATA_LINEAR_KV_TENSOR(name)   a KV tensor an INTERVAL linear layer holds\n")
        .append(" *   STRATA_STATE_TENSOR(name, kind) \"blk.N.\" + name makes block N recurrent\n")
        .append(
            " *   STRATA_STATE_KEY(kind, i, key)  key i of the kind's formula, after \"{arch}.\"\n")
        .append(" *   STRATA_EXPERT_TENSOR(name)      expert tensors (merged layouts)\n")
        .append(" *   STRATA_LIMIT(name, value)       the reader's limits\n")
        .append(" *   STRATA_KEY(name, key)           keys after \"{arch}.\"\n")
        .append(" */\n");
    String[] macros = {
      "STRATA_ARCH(n, s, p, k, l)",
      "STRATA_KV_TENSOR(n)",
      "STRATA_LINEAR_KV_TENSOR(n)",
      "STRATA_STATE_TENSOR(n, k)",
      "STRATA_STATE_KEY(k, i, n)",
      "STRATA_EXPERT_TENSOR(n)",
      "STRATA_LIMIT(n, v)",
      "STRATA_KEY(n, k)"
    };
    for (String m : macros) {
      String name = m.substring(0, m.indexOf('('));
      c.append("#ifndef ")
          .append(name)
          .append("\n#define ")
          .append(m)
          .append("\n#define ")
          .append(name)
          .append("_OWN\n#endif\n");
    }
    c.append('\n');
    for (Arch a : ArchTable.ARCHES) {
      c.append("STRATA_ARCH(")
          .append(quote(a.name()))
          .append(", STRATA_SUPPORT_")
          .append(a.support().name())
          .append(", ")
          .append(a.swaPattern())
          .append(", STRATA_STATE_")
          .append(a.state().name())
          .append(", STRATA_LAYERS_")
          .append(a.layers().name())
          .append(")\n");
    }
    c.append('\n');
    for (String t : ArchTable.KV_TENSORS) {
      c.append("STRATA_KV_TENSOR(").append(quote(t)).append(")\n");
    }
    for (String t : ArchTable.LINEAR_ATTENTION_KV_TENSORS) {
      c.append("STRATA_LINEAR_KV_TENSOR(").append(quote(t)).append(")\n");
    }
    for (StateKind k : StateKind.values()) {
      if (k == StateKind.NONE) {
        continue;
      }
      c.append("STRATA_STATE_TENSOR(")
          .append(quote(k.marker))
          .append(", STRATA_STATE_")
          .append(k.name())
          .append(")\n");
      for (int i = 0; i < k.keys.size(); i++) {
        c.append("STRATA_STATE_KEY(STRATA_STATE_")
            .append(k.name())
            .append(", ")
            .append(i)
            .append(", ")
            .append(quote(k.keys.get(i)))
            .append(")\n");
      }
    }
    for (String t : ArchTable.EXPERT_TENSORS) {
      c.append("STRATA_EXPERT_TENSOR(").append(quote(t)).append(")\n");
    }
    c.append('\n');
    limit(c, "MAX_SMALL", HeaderCounts.MAX_SMALL);
    limit(c, "MAX_WINDOW", HeaderCounts.MAX_WINDOW);
    limit(c, "MAX_STRING", GgufReader.MAX_STRING);
    limit(c, "MAX_ARRAY", GgufReader.MAX_ARRAY);
    limit(c, "MAX_TENSORS", GgufReader.MAX_TENSORS);
    limit(c, "MAX_KVS", GgufReader.MAX_KVS);
    limit(c, "MAX_DIMS", GgufReader.MAX_DIMS);
    limit(c, "MAX_SHARDS", GgufReader.MAX_SHARDS);
    c.append('\n');
    key(c, "NEXTN", ArchTable.NEXTN_KEY);
    key(c, "MLA", ArchTable.MLA_KEY);
    c.append('\n');
    for (String m : macros) {
      String name = m.substring(0, m.indexOf('('));
      c.append("#ifdef ")
          .append(name)
          .append("_OWN\n#undef ")
          .append(name)
          .append("\n#undef ")
          .append(name)
          .append("_OWN\n#endif\n");
    }
    return c.toString();
  }

  private static void limit(StringBuilder c, String name, long value) {
    c.append("STRATA_LIMIT(").append(name).append(", ").append(value).append("ULL)\n");
  }

  private static void key(StringBuilder c, String name, String key) {
    c.append("STRATA_KEY(").append(name).append(", ").append(quote(key)).append(")\n");
  }

  private static String quote(String s) {
    return '"' + s + '"';
  }
}
