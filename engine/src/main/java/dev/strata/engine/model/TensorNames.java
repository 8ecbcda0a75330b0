package dev.strata.engine.model;

/**
 * The tensor-name forms the geometry reads (llama.cpp's names, src/llama-arch.cpp), parsed without
 * regular expressions: this runs for every tensor of every shard on each {@code strata-setup}, in a
 * fresh JVM where the regex engine is interpreted (docs/PERFORMANCE.md §2). Each method accepts
 * exactly the strings its documented pattern (Java regex, {@code matches()}) does; {@code
 * TensorNamesTest} checks that against the patterns themselves.
 */
final class TensorNames {
  private TensorNames() {}

  /**
   * Where REST starts in a block tensor's name {@code blk.N.REST}, or -1 for any other name. The
   * pattern: {@code blk\.(\d{1,9})\.(.+)}, so N is 1 to 9 ASCII digits and REST is not empty and
   * holds no line terminator (what {@code .} excludes: \n, \r, U+0085, U+2028, U+2029).
   */
  static int blockRest(String name) {
    if (!name.startsWith("blk.")) {
      return -1;
    }
    int i = digits(name, 4, 9);
    if (i < 0 || i >= name.length() - 1 || name.charAt(i) != '.') {
      return -1;
    }
    for (int k = i + 1; k < name.length(); k++) {
      char c = name.charAt(k);
      if (c == '\n' || c == '\r' || c == '\u0085' || c == '\u2028' || c == '\u2029') {
        return -1;
      }
    }
    return i + 1;
  }

  /** N of a block tensor's name, given {@code rest = blockRest(name) >= 0}. */
  static int blockLayer(String name, int rest) {
    int n = 0;
    for (int i = 4; i < rest - 1; i++) {
      n = n * 10 + (name.charAt(i) - '0');
    }
    return n;
  }

  /**
   * The index in {@link ArchTable#EXPERT_TENSORS} of NAME when {@code rest} is {@code NAME.weight},
   * {@code NAME.bias} or {@code NAME.scale}, else -1. The pattern: {@code
   * (ffn_gate_exps|…)\.(weight|bias|scale)}.
   */
  static int expertTensor(String rest) {
    int dot = rest.indexOf('.');
    if (dot < 0) {
      return -1;
    }
    String suffix = rest.substring(dot + 1);
    if (!suffix.equals("weight") && !suffix.equals("bias") && !suffix.equals("scale")) {
      return -1;
    }
    return ArchTable.EXPERT_TENSORS.indexOf(rest.substring(0, dot));
  }

  /**
   * For {@code rest} = {@code NAME.E.weight} with NAME in {@link ArchTable#LEGACY_EXPERT_TENSORS}
   * and E 1 to 6 ASCII digits: {@code {index of NAME, E}}, else null. The pattern: {@code
   * (ffn_gate|ffn_up|ffn_down)\.(\d{1,6})\.weight}.
   */
  static int[] legacyExpert(String rest) {
    int dot = rest.indexOf('.');
    if (dot < 0) {
      return null;
    }
    int end = digits(rest, dot + 1, 6);
    if (end < 0 || !rest.startsWith(".weight", end) || end + ".weight".length() != rest.length()) {
      return null;
    }
    int name = ArchTable.LEGACY_EXPERT_TENSORS.indexOf(rest.substring(0, dot));
    if (name < 0) {
      return null;
    }
    int e = 0;
    for (int i = dot + 1; i < end; i++) {
      e = e * 10 + (rest.charAt(i) - '0');
    }
    return new int[] {name, e};
  }

  /**
   * The end of a run of 1 to {@code max} ASCII digits from {@code from} that is not followed by
   * another digit, or -1 (what {@code \d{1,max}} followed by a non-digit accepts).
   */
  private static int digits(String s, int from, int max) {
    int i = from;
    while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
      i++;
    }
    return i == from || i - from > max ? -1 : i;
  }
}
