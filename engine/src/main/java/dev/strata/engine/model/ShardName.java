package dev.strata.engine.model;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The file name of one shard of a split set, as llama.cpp's gguf-split writes it: {@code
 * NAME-0000k-of-0000n.gguf} (k from 1).
 *
 * @param prefix NAME
 * @param index k, 1-based as in the name
 * @param count n
 */
public record ShardName(String prefix, int index, int count) {
  private static final Pattern PATTERN = Pattern.compile("(.+)-(\\d{5})-of-(\\d{5})\\.gguf");

  /** The parts of a shard file name, or null when the name is not one. */
  public static ShardName parse(String fileName) {
    Matcher m = PATTERN.matcher(fileName);
    if (!m.matches()) {
      return null;
    }
    return new ShardName(m.group(1), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
  }

  /** The file name of shard k (1-based) of this set. */
  public String fileName(int k) {
    return format(prefix, k, count);
  }

  /**
   * {@code PREFIX-0000k-of-0000n.gguf}: k and n zero-padded to five digits, as llama.cpp's {@code
   * "%s-%05d-of-%05d.gguf"} (without {@code String.format}, whose first use costs a start-up
   * several milliseconds: docs/PERFORMANCE.md).
   *
   * @param k the shard, from 1
   * @param count the shards in the set, from 1
   */
  public static String format(String prefix, int k, int count) {
    return prefix + "-" + fiveDigits(k) + "-of-" + fiveDigits(count) + ".gguf";
  }

  private static String fiveDigits(int v) {
    String s = Integer.toString(v);
    return s.length() >= 5 ? s : "00000".substring(s.length()) + s;
  }
}
