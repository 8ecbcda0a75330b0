package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The expert arena's counts against an independent replay of the router (issue 30): strata-ref runs
 * a short workload with {@code STRATA_ARENA_TRACE} (the router's choices, per forward call and MoE
 * layer, the experts each token chose) at an arena of one token's experts and 9 slots more ({@code
 * STRATA_ARENA_BARE=1}: no stand-by, no page-cache headroom, so a small model streams), and this
 * test replays the trace through its own LRU and LFU — the distinct experts of each line in
 * ascending id order, as moe.c fetches them — and requires the engine's lookups, hits, misses,
 * evictions, slots used and bytes read to equal the replay's exactly. On the shared tiny qwen3moe
 * Q8_0 (trained routing; 313,344-byte slots, so a budget in MiB sets the arena to about 3 slots).
 * The synthetic {@code TinyModel.moe()} cannot serve: its 26,112-byte slots are 40 to the MiB, more
 * than its 32 model slots, so --mem-budget-mb cannot give it a partial arena.
 */
class ArenaReplayE2eTest {
  private static final Pattern ARENA =
      Pattern.compile(
          "arena: mode=stream slots=(\\d+) slots_used=(\\d+) lookups=(\\d+) hits=(\\d+)"
              + " misses=(\\d+) miss_rate=\\S+ bytes_read=(\\d+) bytes_read_per_token=\\d+"
              + " evictions=(\\d+) read_seconds=\\S+ policy=(\\w+) cache=(\\w+)"
              + " decode_tokens=\\d+ decode_misses=\\d+ decode_read_bytes=\\d+");

  private static final Pattern MEMORY =
      Pattern.compile("memory: total=.* token_slots=(\\d+) slot_bytes=(\\d+) .*");

  @TempDir Path dir;

  record Counts(long slotsUsed, long lookups, long hits, long misses, long evictions) {}

  @Test
  void engineCountsEqualAReplayOfTheRoutersChoices() throws Exception {
    for (Path model : List.of(ArenaRuns.tinyMoe())) {
      // every expert in the arena first: the fixed items and the slot size from the engine's lines
      List<String> open = run(model, 0, "lru").lines;
      long fixed = ArenaRuns.fixedBytes(open);
      Matcher mem = find(open, MEMORY);
      long tokenSlots = Long.parseLong(mem.group(1)), slotBytes = Long.parseLong(mem.group(2));
      long budgetMb = ArenaRuns.budgetMb(fixed, tokenSlots + 9, slotBytes);
      for (String policy : List.of("lru", "lfu")) {
        Out r = run(model, budgetMb, policy);
        Matcher a = find(r.lines, ARENA);
        long slots = Long.parseLong(a.group(1));
        String what = model.getFileName() + " " + policy + " at " + slots + " slots";
        assertTrue(slots >= tokenSlots + 9 && slots < tokenSlots + 13, what);
        assertEquals(policy, a.group(8), what);
        Counts engine =
            new Counts(
                Long.parseLong(a.group(2)),
                Long.parseLong(a.group(3)),
                Long.parseLong(a.group(4)),
                Long.parseLong(a.group(5)),
                Long.parseLong(a.group(7)));
        Counts replay = replay(Files.readAllLines(r.trace), (int) slots, policy);
        assertEquals(replay, engine, what);
        assertEquals(
            engine.misses() * slotBytes, Long.parseLong(a.group(6)), what + ": bytes read");
        assertTrue(engine.evictions() > 0, what + ": the run evicts");
      }
    }
  }

  /**
   * The trace through an arena of {@code slots} slots: per line ({@code l LAYER B e,e,e,e …}) the
   * distinct experts in ascending id order, each one lookup of (layer, expert).
   */
  static Counts replay(List<String> trace, int slots, String policy) {
    assertTrue(trace.getFirst().startsWith("# strata-ref router trace 1: "), trace.getFirst());
    Policy p = policy.equals("lru") ? new Lru(slots) : new Lfu(slots);
    long lookups = 0, misses = 0;
    for (String line : trace.subList(1, trace.size())) {
      String[] f = line.split(" ");
      assertEquals("l", f[0], line);
      int b = Integer.parseInt(f[2]);
      assertEquals(3 + b, f.length, line);
      TreeSet<Integer> distinct = new TreeSet<>();
      for (int t = 0; t < b; t++) {
        for (String e : f[3 + t].split(",")) {
          distinct.add(Integer.parseInt(e));
        }
      }
      for (int e : distinct) {
        lookups++;
        if (!p.lookup(f[1] + "/" + e)) {
          misses++;
        }
      }
    }
    return new Counts(p.size(), lookups, lookups - misses, misses, p.evictions);
  }

  /**
   * A replacement policy over {@code slots} slots: what it holds (keyed "layer/expert") and how
   * many it evicted.
   */
  abstract static sealed class Policy permits Lru, Lfu {
    final int slots;
    long evictions;

    Policy(int slots) {
      this.slots = slots;
    }

    /** True on a hit; a miss takes a free slot or evicts one. */
    abstract boolean lookup(String key);

    /** The experts held now. */
    abstract Map<String, ?> held();

    int size() {
      return held().size();
    }
  }

  /**
   * Least recently used: an access-ordered map that drops its eldest entry when a new one overfills
   * it (written apart from the plan's replay, ExpectedReads, so that each checks the other).
   */
  static final class Lru extends Policy {
    private final LinkedHashMap<String, Boolean> cache =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            boolean over = size() > slots;
            evictions += over ? 1 : 0;
            return over;
          }
        };

    Lru(int slots) {
      super(slots);
    }

    @Override
    boolean lookup(String key) {
      return cache.put(key, Boolean.TRUE) != null;
    }

    @Override
    Map<String, ?> held() {
      return cache;
    }
  }

  /**
   * Least frequently used, with every expert's lookups counted from the start (cached or not): the
   * victim has the fewest lookups, ties to the oldest last use.
   */
  static final class Lfu extends Policy {
    private final Map<String, Long> count = new HashMap<>();
    private final Map<String, Long> lastUse = new HashMap<>();
    private long clock;

    Lfu(int slots) {
      super(slots);
    }

    @Override
    boolean lookup(String key) {
      clock++;
      count.merge(key, 1L, Long::sum);
      boolean hit = lastUse.containsKey(key);
      if (!hit && lastUse.size() == slots) {
        String victim = null;
        for (Map.Entry<String, Long> e : lastUse.entrySet()) {
          if (victim == null || better(e.getKey(), victim)) {
            victim = e.getKey();
          }
        }
        lastUse.remove(victim);
        evictions++;
      }
      lastUse.put(key, clock);
      return hit;
    }

    private boolean better(String a, String b) {
      long ca = count.get(a), cb = count.get(b);
      return ca < cb || (ca == cb && lastUse.get(a) < lastUse.get(b));
    }

    @Override
    Map<String, ?> held() {
      return lastUse;
    }
  }

  record Out(List<String> lines, Path trace) {}

  /** The shared model's short workload (64 prompt tokens, 24 decoded) with the router traced. */
  private Out run(Path model, long budgetMb, String policy) throws Exception {
    Path trace = Files.createTempFile(dir, "trace-", ".txt");
    return new Out(ArenaRuns.run(model, 64, 24, budgetMb, policy, trace), trace);
  }

  private static Matcher find(List<String> lines, Pattern p) {
    return RefRun.find(lines, p, String.join("\n", lines));
  }
}
