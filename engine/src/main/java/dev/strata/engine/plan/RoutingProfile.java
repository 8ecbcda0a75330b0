package dev.strata.engine.plan;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A model's routing as one run recorded it: strata-ref's router trace ({@code
 * STRATA_ARENA_TRACE=PATH}, engine/native/src/arena.h {@code strata_arena_trace}; docs/PLAN.md
 * "Expected reads"). The trace has a header {@code # strata-ref router trace 1: experts=X used=K
 * moe_layers=L …} and one line per forward call and MoE layer, {@code l LAYER B e,e,e,e …}: the
 * experts each of the call's B tokens chose. The arena looks up each line's distinct experts in
 * ascending id order (moe.c), so {@link #calls} is exactly the engine's lookup sequence.
 *
 * <p>The prompt is the leading calls up to the last one with more than one token; the rest is the
 * decode, one token per call. A trace without a batched call counts its first token as the prompt.
 *
 * @param source where the trace came from (a path, for the plan's wording)
 * @param experts {@code expert_count}
 * @param used {@code expert_used_count}
 * @param moeLayers MoE layers
 * @param calls per forward call and MoE layer: the layer's index and its distinct experts
 * @param decodeFrom index of the first decode call in {@link #calls}
 */
public record RoutingProfile(
    String source, int experts, int used, int moeLayers, List<Call> calls, int decodeFrom) {

  /** The header's first words: the trace format this reads. */
  public static final String HEADER = "# strata-ref router trace 1: ";

  /** A trace longer than this is refused: a plan reads the whole file. */
  public static final long MAX_BYTES = 64L << 20;

  private static final Pattern HEAD =
      Pattern.compile(
          Pattern.quote(HEADER) + "experts=(\\d{1,6}) used=(\\d{1,6}) moe_layers=(\\d{1,6})\\b.*");

  /**
   * One forward call's lookups at one MoE layer.
   *
   * @param layer index of the MoE layer, 0 … moeLayers − 1
   * @param tokens the call's tokens (B)
   * @param distinct the experts the call looks up, ascending
   */
  public record Call(int layer, int tokens, int[] distinct) {}

  public RoutingProfile {
    calls = List.copyOf(calls);
  }

  /** Decoded tokens in the trace (decode calls / MoE layers), at least 0. */
  public long decodeTokens() {
    return (calls.size() - decodeFrom) / Math.max(1, moeLayers);
  }

  /**
   * Reads a trace file. Errors are {@link IllegalArgumentException}s naming the file and line and
   * the remedy (record it again with {@code STRATA_ARENA_TRACE}).
   */
  public static RoutingProfile read(Path file) {
    try {
      if (Files.size(file) > MAX_BYTES) {
        throw bad(file, 0, "larger than " + (MAX_BYTES >> 20) + " MiB");
      }
      return parse(
          file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          file + ": cannot read the routing trace (" + dev.strata.engine.IoReason.of(e) + ")", e);
    }
  }

  /** Parses a trace's lines; {@code where} names it in errors. */
  public static RoutingProfile parse(String source, List<String> lines, String where) {
    if (lines.isEmpty()) {
      throw bad(where, 1, "empty, not a strata-ref router trace");
    }
    Matcher h = HEAD.matcher(lines.getFirst());
    if (!h.matches()) {
      throw bad(where, 1, "not a strata-ref router trace (expected '" + HEADER + "experts=…')");
    }
    int x = Integer.parseInt(h.group(1));
    int k = Integer.parseInt(h.group(2));
    int layers = Integer.parseInt(h.group(3));
    if (x < 1 || k < 1 || k > x || layers < 1) {
      throw bad(where, 1, "experts, used and moe_layers must be 1 or more, used <= experts");
    }
    List<Call> calls = new ArrayList<>();
    int lastBatch = -1;
    for (int n = 1; n < lines.size(); n++) {
      String line = lines.get(n);
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split(" ");
      int layer, b;
      try {
        if (f.length < 3 || !f[0].equals("l")) {
          throw new NumberFormatException();
        }
        layer = Integer.parseInt(f[1]);
        b = Integer.parseInt(f[2]);
      } catch (NumberFormatException e) {
        throw bad(where, n + 1, "expected 'l LAYER TOKENS e,e,… …'");
      }
      if (layer < 0 || layer >= layers || b < 1 || f.length != 3 + b) {
        throw bad(where, n + 1, "layer outside 0.." + (layers - 1) + " or a token count unlike");
      }
      int[] count = new int[x];
      for (int t = 0; t < b; t++) {
        String[] es = f[3 + t].split(",");
        if (es.length != k) {
          throw bad(where, n + 1, "a token with " + es.length + " experts, not " + k);
        }
        for (String e : es) {
          int id;
          try {
            id = Integer.parseInt(e);
          } catch (NumberFormatException ex) {
            id = -1;
          }
          if (id < 0 || id >= x) {
            throw bad(where, n + 1, "expert '" + e + "' outside 0.." + (x - 1));
          }
          count[id]++;
        }
      }
      int[] distinct = java.util.stream.IntStream.range(0, x).filter(e -> count[e] > 0).toArray();
      calls.add(new Call(layer, b, distinct));
      if (b > 1) {
        lastBatch = calls.size() - 1;
      }
    }
    int decodeFrom = lastBatch >= 0 ? lastBatch + 1 : Math.min(layers, calls.size());
    return new RoutingProfile(source, x, k, layers, calls, decodeFrom);
  }

  private static IllegalArgumentException bad(Object where, int line, String what) {
    return new IllegalArgumentException(
        where
            + (line > 0 ? ":" + line : "")
            + ": "
            + what
            + "; record the routing again with STRATA_ARENA_TRACE=FILE (docs/PLAN.md)");
  }
}
