package dev.strata.engine.plan;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The stream arena's expected read traffic per decoded token (issue 30 item 4; docs/PLAN.md
 * "Expected reads"): how many of a token's expert lookups miss the arena and what the misses read
 * from the SSD. strata-ref prints the measured figures beside it ({@code arena: … decode_tokens=N
 * decode_misses=M decode_read_bytes=B}).
 *
 * <p>Two bases, by what is known before the run:
 *
 * <ul>
 *   <li>{@link Basis#UNIFORM}: only the geometry. Every expert equally likely: an arena of C of the
 *       model's N slots misses a lookup with probability 1 − C/N (LRU and LFU alike), so K × L × (1
 *       − C/N) misses per token (K experts used, L MoE layers). The trained router is skewed: this
 *       overstates the traffic (4 % to 55 % on the shared tiny qwen3moe, docs/PLAN.md).
 *   <li>{@link Basis#PROFILE}: a recorded routing trace of this model ({@link RoutingProfile})
 *       replayed through the engine's own policy at the plan's slots (arena.c: LRU, or LFU's fewest
 *       lookups since the session opened, ties to the oldest use): the recorded decode's misses per
 *       decoded token. Replayed, not approximated from the popularity: on the shared tiny qwen3moe,
 *       Che's approximation for LRU (H. Che et al., IEEE JSAC 20(7), 2002) from the recorded
 *       popularity was within 10 % on real text but expected 1.20-1.34x too few misses on a
 *       synthetic greedy decode (its text repeats itself: lookups are not independent), and the
 *       top-C rule for LFU expected 7-13 % too few (LFU learns the popularity during the run, its
 *       counts starting flat from the prompt). What a replay cannot know is how far another
 *       workload's routing differs from the recorded one.
 * </ul>
 *
 * Bytes per token = misses × slot bytes: exact where every MoE layer's experts have one size, an
 * upper bound where the layers' types differ (the slot is the largest layer's expert).
 *
 * @param policy the arena's replacement policy ({@code STRATA_ARENA_POLICY}: lru, lfu)
 * @param basis what the expectation is made from
 * @param source the profile's source, or null for {@link Basis#UNIFORM}
 * @param slots arena slots C
 * @param lookupsPerToken expert lookups per decoded token (K × L)
 * @param missesPerToken expected misses per decoded token
 * @param bytesPerToken expected bytes read per decoded token, rounded to the byte
 */
public record ExpectedReads(
    String policy,
    Basis basis,
    String source,
    long slots,
    long lookupsPerToken,
    double missesPerToken,
    long bytesPerToken) {

  /** What an expectation is made from. */
  public enum Basis {
    /** Geometry only: every expert equally likely. */
    UNIFORM,
    /** A recorded routing trace of this model. */
    PROFILE,
    /** The arena holds every expert: nothing is read after the first use. */
    EVERY_EXPERT
  }

  /** The engine's environment switch for the policy (arena.h). */
  public static final String ENV_POLICY = "STRATA_ARENA_POLICY";

  /** The policy the engine runs with this environment: lfu when asked for, else lru. */
  public static String policy(Map<String, String> env) {
    String p = env.get(ENV_POLICY);
    return p != null && p.equals("lfu") ? "lfu" : "lru";
  }

  /**
   * The expectation for a stream arena.
   *
   * @param arena the plan's arena (its slots, the model's and one token's)
   * @param policy lru or lfu
   * @param profile a routing trace of this model, or null (uniform); one of another geometry is the
   *     caller's to refuse ({@link #fitsModel})
   */
  public static ExpectedReads of(ExpertArena arena, String policy, RoutingProfile profile) {
    long c = arena.slots(), n = arena.modelSlots(), k = arena.tokenSlots();
    if (c >= n) {
      return new ExpectedReads(policy, Basis.EVERY_EXPERT, null, c, k, 0, 0);
    }
    if (profile == null) {
      double misses = k * (1 - (double) c / n);
      return new ExpectedReads(
          policy, Basis.UNIFORM, null, c, k, misses, Math.round(misses * arena.slotBytes()));
    }
    double misses =
        policy.equals("lfu") ? lfuReplay(profile, (int) c) : lruReplay(profile, (int) c);
    return new ExpectedReads(
        policy,
        Basis.PROFILE,
        profile.source(),
        c,
        k,
        misses,
        Math.round(misses * arena.slotBytes()));
  }

  /** Whether a profile was recorded on a model of this arena's geometry. */
  public static boolean fitsModel(RoutingProfile p, ExpertArena arena) {
    return (long) p.experts() * p.moeLayers() == arena.modelSlots()
        && (long) p.used() * p.moeLayers() == arena.tokenSlots();
  }

  /**
   * The trace through the engine's LRU at {@code c} slots (arena.c: a hit moves its slot to the
   * front, a miss takes a free slot or the least recently used one): decode misses per decoded
   * token; all misses per token when the trace has no decode.
   */
  static double lruReplay(RoutingProfile p, int c) {
    if (c < 1) {
      return p.used() * p.moeLayers(); // no slot: every lookup misses
    }
    LinkedHashMap<Integer, Boolean> cache = new LinkedHashMap<>(2 * c, 0.75f, true);
    return replay(
        p,
        id -> {
          if (cache.get(id) != null) {
            return true;
          }
          if (cache.size() == c) {
            Iterator<Integer> oldest = cache.keySet().iterator();
            oldest.next();
            oldest.remove();
          }
          cache.put(id, Boolean.TRUE);
          return false;
        });
  }

  /**
   * The trace through the engine's LFU at {@code c} slots (arena.c: counts of every expert's
   * lookups since the session opened, cached or not; the victim has the fewest, ties to the oldest
   * last use): decode misses per decoded token; all misses per token when the trace has no decode.
   */
  static double lfuReplay(RoutingProfile p, int c) {
    if (c < 1) {
      return p.used() * p.moeLayers(); // no slot: every lookup misses
    }
    int n = p.experts() * p.moeLayers();
    long[] count = new long[n], last = new long[n], clock = {0};
    boolean[] cached = new boolean[n];
    // cached items by (count, last use): the first is the victim
    TreeSet<Integer> order =
        new TreeSet<>(
            (a, b) ->
                count[a] != count[b]
                    ? Long.compare(count[a], count[b])
                    : Long.compare(last[a], last[b]));
    return replay(
        p,
        id -> {
          boolean hit = cached[id];
          if (hit) {
            order.remove(id);
          } else if (order.size() == c) {
            cached[order.pollFirst()] = false;
          }
          cached[id] = true;
          count[id]++;
          last[id] = ++clock[0];
          order.add(id);
          return hit;
        });
  }

  /** One lookup of (layer × experts + expert) through a policy: true on a hit. */
  private interface Lookup {
    boolean hit(int id);
  }

  /**
   * The trace's lookups in the engine's order (each call's distinct experts, ascending) through
   * {@code policy}: the decode's misses per decoded token, or every call's per token when the trace
   * has no decode.
   */
  private static double replay(RoutingProfile p, Lookup policy) {
    long misses = 0, tokens = 0;
    boolean decode = p.decodeFrom() < p.calls().size();
    for (int i = 0; i < p.calls().size(); i++) {
      RoutingProfile.Call call = p.calls().get(i);
      boolean counted = !decode || i >= p.decodeFrom();
      if (counted && call.layer() == 0) {
        tokens += call.tokens();
      }
      for (int e : call.distinct()) {
        boolean hit = policy.hit(call.layer() * p.experts() + e);
        misses += counted && !hit ? 1 : 0;
      }
    }
    return tokens > 0 ? (double) misses / tokens : 0;
  }
}
