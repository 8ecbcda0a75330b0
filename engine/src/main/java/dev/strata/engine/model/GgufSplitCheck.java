package dev.strata.engine.model;

import dev.strata.engine.model.GgufException.Kind;
import dev.strata.engine.text.Clip;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether the files of a split set are one model ({@link #checkSet}): the check {@link GgufReader}
 * runs on the headers {@link GgufSplitSet} found and {@link GgufParser} read. gguf-split's rules
 * (docs/ENGINE-CONTRACT.md, "Reading").
 */
final class GgufSplitCheck {
  private GgufSplitCheck() {}

  /**
   * Keys of the early split formats, which llama.cpp dropped: the first gguf-split's {@code
   * general.split} (the index) and {@code general.split_count}, and {@code general.split.count} …
   */
  static final String OLD_SPLIT_PREFIX = "general.split";

  /** Whether {@code key} is one of the early split keys ({@link #OLD_SPLIT_PREFIX}). */
  static boolean isOldSplitKey(String key) {
    return key.equals(OLD_SPLIT_PREFIX)
        || key.startsWith(OLD_SPLIT_PREFIX + ".")
        || key.startsWith(OLD_SPLIT_PREFIX + "_");
  }

  /**
   * Checks that the files are one model. gguf-split writes the model's metadata into the first
   * shard only and {@code split.no}, {@code split.count}, {@code split.tensors.count} into every
   * shard; any key two shards share must have one value, so a shard of another model or of another
   * split of the same model is caught by its keys or by its tensors.
   */
  static void checkSet(List<GgufFile> files, boolean splitNamed) {
    GgufFile first = files.getFirst();
    for (GgufFile f : files) {
      if (f.get("split.count") == null) {
        for (String key : f.metadata().keySet()) {
          if (isOldSplitKey(key)) {
            throw new GgufException(
                Kind.NOT_A_MODEL,
                f.file(),
                "carries the old split key "
                    + Clip.clip(key)
                    + " (an early gguf-split format that llama.cpp no longer reads; the file is whole,"
                    + " its format is old): merge the shards with the gguf-split that"
                    + " wrote them (gguf-split --merge) and re-split the merged file with a current"
                    + " llama.cpp's gguf-split (or pass it whole)");
          }
        }
      }
    }
    if (!splitNamed) {
      long count = first.unsigned("split.count");
      if (count > 1) {
        throw GgufException.inconsistent(
            first.file(),
            ("says it is shard %s of %s but its name lacks -0000k-of-0000n.gguf;"
                    + " restore the original file names")
                .formatted(first.unsigned("split.no") + 1, count));
      }
      return;
    }
    int n = files.size();
    for (int k = 0; k < n; k++) {
      GgufFile f = files.get(k);
      long count = f.unsigned("split.count");
      long no = f.unsigned("split.no");
      if (count < 0 || no < 0) {
        if (n == 1) {
          continue; // NAME-00001-of-00001.gguf without split keys: just a single file
        }
        throw foreign(f, k, "has no split.count/split.no: it is not a shard of this split model");
      }
      if (count != n) {
        throw foreign(
            f,
            k,
            "says it is one of %s shards but the set has %s: a shard of another model or split"
                .formatted(count, n));
      }
      if (no != k) {
        throw GgufException.inconsistent(
            f.file(),
            "is named shard %s but says it is shard %s; restore the original file names"
                .formatted(k + 1, no + 1));
      }
    }
    // The value most shards hold is the set's: the odd one out is named, even when it is the first.
    GgufValue common = majority(files, "split.tensors.count");
    for (int k = 0; k < n && n > 1; k++) {
      GgufFile f = files.get(k);
      GgufValue v = f.get("split.tensors.count");
      if (!Objects.equals(v, common)) {
        throw foreign(
            f,
            k,
            "split.tensors.count is %s but the other shards say %s: a shard of another model"
                .formatted(
                    v == null ? "absent" : GgufFile.describe(v),
                    common == null ? "nothing" : GgufFile.describe(common)));
      }
    }
    for (int k = 1; k < n; k++) {
      GgufFile f = files.get(k);
      for (Map.Entry<String, GgufValue> e : f.metadata().entrySet()) {
        if (e.getKey().equals("split.no")) {
          continue;
        }
        GgufValue mine = first.get(e.getKey());
        if (mine != null && !mine.equals(e.getValue())) {
          throw foreign(
              f,
              k,
              "%s is %s but the first shard's is %s: a shard of another model"
                  .formatted(
                      Clip.clip(e.getKey()),
                      GgufFile.describe(e.getValue()),
                      GgufFile.describe(mine)));
        }
      }
    }
    Map<String, Integer> where = new HashMap<>();
    long total = 0;
    for (int k = 0; k < n; k++) {
      GgufFile f = files.get(k);
      for (GgufTensor t : f.tensors()) {
        Integer prev = where.putIfAbsent(t.name(), k);
        if (prev != null) {
          throw GgufException.inconsistent(
              f.file(),
              ("holds tensor %s which %s holds too: shards of different splits;"
                      + " download the set again")
                  .formatted(Clip.clip(t.name()), files.get(prev).file()));
        }
      }
      total += f.tensors().size();
    }
    GgufValue declared = first.get("split.tensors.count");
    if (declared != null) {
      if (!(declared instanceof GgufValue.IntValue iv) || iv.bits() != total) {
        throw GgufException.inconsistent(
            first.file(),
            "split.tensors.count is %s but the %s shards hold %s tensors; download the set again"
                .formatted(GgufFile.describe(declared), n, total));
      }
    }
  }

  /**
   * Shard {@code k} (from 0) belongs to another model or split ({@link Kind#FOREIGN_SHARD}): {@code
   * what}, then the remedy "; download shard K again" (K from 1).
   */
  private static GgufException foreign(GgufFile f, int k, String what) {
    return new GgufException(
        Kind.FOREIGN_SHARD, f.file(), what + "; download shard " + (k + 1) + " again");
  }

  private static GgufValue majority(List<GgufFile> files, String key) {
    Map<GgufValue, Integer> votes = new HashMap<>();
    GgufValue best = files.getFirst().get(key);
    int bestVotes = 0;
    for (GgufFile f : files) {
      GgufValue v = f.get(key);
      if (v == null) {
        continue;
      }
      int c = votes.merge(v, 1, Integer::sum);
      if (c > bestVotes) {
        best = v;
        bestVotes = c;
      }
    }
    // a tie keeps the first shard's value
    GgufValue first = files.getFirst().get(key);
    return first != null && votes.getOrDefault(first, 0) == bestVotes ? first : best;
  }

  static long addOrAbsurd(long a, long b, String file) {
    try {
      return Math.addExact(a, b);
    } catch (ArithmeticException e) {
      throw new GgufException(
          Kind.ABSURD_COUNT, file, "tensor bytes overflow; the file is damaged");
    }
  }
}
