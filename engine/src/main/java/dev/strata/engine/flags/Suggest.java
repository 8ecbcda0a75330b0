package dev.strata.engine.flags;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;

/** "Did you mean" suggestions: the nearest known word by edit distance, if it is near enough. */
public final class Suggest {
  private Suggest() {}

  /**
   * llama.cpp's spellings of the flags Strata names otherwise (llama.cpp's {@code common/arg.cpp}:
   * {@code -c, --ctx-size}; {@code -n, --predict, --n-predict}; {@code -t, --threads}; {@code -m,
   * --model}; {@code -p, --prompt}; {@code --temp, --temperature}; {@code -np, --parallel}; {@code
   * -ctk, --cache-type-k} and {@code -ctv, --cache-type-v}; {@code --draft, --draft-n,
   * --draft-max}), each to ours: too far apart by edit distance to be found, and what a llama.cpp
   * user types first. An alias is offered only where its target is one of the known words.
   */
  static final Map<String, String> LLAMA_CPP =
      Map.ofEntries(
          Map.entry("-c", "--ctx"),
          Map.entry("--ctx-size", "--ctx"),
          Map.entry("-n", "--n-predict"),
          Map.entry("--predict", "--n-predict"),
          Map.entry("-t", "--threads"),
          Map.entry("-m", "--model"),
          Map.entry("-p", "--prompt"),
          Map.entry("--temperature", "--temp"),
          Map.entry("-np", "--parallel"),
          Map.entry("-ctk", "--kv"),
          Map.entry("--cache-type-k", "--kv"),
          Map.entry("-ctv", "--kv"),
          Map.entry("--cache-type-v", "--kv"),
          Map.entry("--draft", "--spec"),
          Map.entry("--draft-n", "--spec"),
          Map.entry("--draft-max", "--spec"));

  /**
   * The known word {@code typed} most likely meant, or null when none is close. Words are compared
   * case-blind with {@code _} and {@code -} read alike. A word typed in part (3 characters or more,
   * leading dashes aside), or shorter but ending where a {@code _}/{@code -} part of it ends
   * ({@code q4} for {@code q4_0}), that begins exactly one known word means that word; otherwise
   * the nearest known word within 2 edits (an adjacent swap counts as one), or 1 for words of 3
   * letters or fewer, the first in {@code known}'s order on a tie. Before all that, llama.cpp's
   * spelling of a known flag ({@link #LLAMA_CPP}: {@code --ctx-size} for {@code --ctx}) means it. A
   * one-letter option ({@code -t}) means only what it folds to or its llama.cpp alias: every other
   * one-letter option is one edit away, so distance says nothing. The one rule for flags, env
   * switches, values, command-line options and host-file fields.
   */
  public static String nearest(String typed, Collection<String> known) {
    String t = fold(typed);
    for (String k : known) {
      if (fold(k).equals(t)) {
        return k; // Q4_0 means q4_0
      }
    }
    String ours = LLAMA_CPP.get(t);
    if (ours != null && known.contains(ours)) {
      return ours;
    }
    if (t.matches("-[^-]")) {
      return null; // one letter: every other short option is one edit away, so none is nearer
    }
    // typed in part: 3 characters or more, or whole parts of one word (q4 for q4_0)
    boolean longEnough = t.replaceFirst("^-+", "").length() >= 3;
    String only = null;
    int begun = 0;
    for (String k : known) {
      String f = fold(k);
      if (longEnough ? f.startsWith(t) : f.startsWith(t + "-")) {
        only = k;
        begun++;
      }
    }
    if (begun == 1 && !t.replaceFirst("^-+", "").isEmpty()) {
      return only;
    }
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = distance(t, fold(k));
      if (d < bestDistance) {
        bestDistance = d;
        best = k;
      }
    }
    if (best == null) {
      return null;
    }
    int allowed = Math.min(typed.length(), best.length()) <= 3 ? 1 : 2;
    return bestDistance <= allowed ? best : null;
  }

  /**
   * Ours for a llama.cpp spelling ({@link #LLAMA_CPP}: {@code -t} is {@code --threads}), else
   * {@code typed}.
   */
  public static String ours(String typed) {
    return LLAMA_CPP.getOrDefault(fold(typed), typed);
  }

  /** Case-blind, {@code _} read as {@code -}. */
  private static String fold(String s) {
    return s.toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * " (did you mean X?)" for the {@link #nearest} known word, or "" when none is close: the one
   * wording of the hint on flags, env switches, values and command-line options.
   */
  public static String didYouMean(String typed, Collection<String> known) {
    String near = nearest(typed, known);
    return near == null ? "" : " (did you mean " + near + "?)";
  }

  /** The same hint, or " (known: a<sep>b…)" when no known word is close. */
  public static String didYouMeanOrKnown(String typed, Collection<String> known, String sep) {
    String hint = didYouMean(typed, known);
    return hint.isEmpty() ? " (known: " + String.join(sep, known) + ")" : hint;
  }

  /** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions). */
  static int distance(String a, String b) {
    if (Math.abs(a.length() - b.length()) > 8) {
      return Integer.MAX_VALUE / 2; // far apart; skip the quadratic table for long junk input
    }
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          v = Math.min(v, d[i - 2][j - 2] + 1);
        }
        d[i][j] = v;
      }
    }
    return d[a.length()][b.length()];
  }
}
