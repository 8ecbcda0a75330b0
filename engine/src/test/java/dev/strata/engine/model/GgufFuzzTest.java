package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A seeded mutation fuzzer: a small valid model, mutated 10,000 ways (bit flips, byte replacements,
 * truncations, count and length fields set to huge values, type fields set to anything), must each
 * either read or raise a {@link GgufException} — never another exception, an out-of-memory or a
 * hang. All in memory; deterministic from the seed. A case whose only mutation is a truncation must
 * be refused as {@link GgufException.Kind#TRUNCATED} (that is what sends a user to download again,
 * so no other damage may be reported as it, nor it as another kind). The whole run is bounded in
 * time: a reader that loops on a crafted length fails the build instead of stalling it (the bound
 * is ~50x the run's usual time here, so load on a shared machine does not trip it).
 */
class GgufFuzzTest {
  private static final long SEED = 0x5EED_6600FL;
  private static final int CASES = 10_000;
  private static final long[] HUGE = {
    Long.MAX_VALUE,
    -1L,
    Long.MIN_VALUE,
    1L << 32,
    1L << 40,
    (16L << 20) + 1,
    (1L << 20) + 1,
    0xFFFF_FFFFL
  };

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void mutatedFilesReadOrFailWithATypedError() {
    byte[] base = TinyHybridModel.bytes();
    GgufFile original = GgufReader.read(new ByteArrayChannel(base, base.length), "base");
    int header = (int) original.dataOffset();
    ByteBuffer le = ByteBuffer.wrap(base).order(ByteOrder.LITTLE_ENDIAN);
    // where the header holds small u64s (counts, lengths, dimensions, offsets) and small u32s
    // (value types, element types, n_dims, ggml types): the fields worth making absurd
    List<Integer> u64s = new ArrayList<>();
    List<Integer> u32s = new ArrayList<>();
    for (int o = 8; o + 8 <= header; o++) {
      long v = le.getLong(o);
      if (v > 0 && v < (1 << 24)) {
        u64s.add(o);
      }
      int w = le.getInt(o);
      if (w >= 0 && w < 64) {
        u32s.add(o);
      }
    }

    SplittableRandom rnd = new SplittableRandom(SEED);
    byte[] work = new byte[base.length];
    ByteBuffer wle = ByteBuffer.wrap(work).order(ByteOrder.LITTLE_ENDIAN);
    Map<GgufException.Kind, Integer> kinds = new EnumMap<>(GgufException.Kind.class);
    int read = 0;
    int truncations = 0;
    for (int i = 0; i < CASES; i++) {
      System.arraycopy(base, 0, work, 0, base.length);
      int len = base.length;
      int ops = 1 + rnd.nextInt(3);
      boolean onlyTruncated = true;
      for (int op = 0; op < ops; op++) {
        int what = rnd.nextInt(5);
        onlyTruncated &= what == 2;
        switch (what) {
          case 0 -> work[at(rnd, header, len)] ^= (byte) (1 << rnd.nextInt(8));
          case 1 -> work[at(rnd, header, len)] = (byte) rnd.nextInt(256);
          case 2 -> len = rnd.nextInt(len + 1);
          case 3 -> wle.putLong(u64s.get(rnd.nextInt(u64s.size())), HUGE[rnd.nextInt(HUGE.length)]);
          default ->
              wle.putInt(
                  u32s.get(rnd.nextInt(u32s.size())),
                  rnd.nextBoolean() ? rnd.nextInt(64) : rnd.nextInt());
        }
        if (len == 0) {
          break;
        }
      }
      String name = "case-" + i;
      try {
        GgufFile f = GgufReader.read(new ByteArrayChannel(work, len), name);
        GgufSplitCheck.checkSet(List.of(f), false);
        GeometryRules.derive(List.of(f));
        if (onlyTruncated && len < base.length) {
          fail(
              name + " (seed " + SEED + "): cut to " + len + " of " + base.length + " bytes, read");
        }
        read++;
      } catch (GgufException e) {
        kinds.merge(e.kind(), 1, Integer::sum);
        if (onlyTruncated && len < base.length) {
          truncations++;
          assertEquals(GgufException.Kind.TRUNCATED, e.kind(), name + ": " + e.getMessage());
        }
        assertTrue(e.getMessage().startsWith(name + ": "), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
      } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
        fail(name + " (seed " + SEED + ") threw " + e, e);
      }
    }
    // the mutations must reach past the magic: many kinds of refusal, and some survivors
    assertTrue(read > 0, "no mutated file was readable: " + kinds);
    assertTrue(kinds.size() >= 6, "too few kinds of refusal reached: " + kinds);
    assertTrue(truncations > 500, "too few pure truncations to check their kind: " + truncations);
    assertEquals(CASES, read + kinds.values().stream().mapToInt(Integer::intValue).sum());
  }

  /** A position to mutate: mostly in the header, where the structure is. */
  private static int at(SplittableRandom rnd, int header, int len) {
    int bound = rnd.nextInt(10) < 9 ? Math.min(header, len) : len;
    return bound <= 0 ? 0 : rnd.nextInt(bound);
  }
}
