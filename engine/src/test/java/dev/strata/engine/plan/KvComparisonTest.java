package dev.strata.engine.plan;

import static dev.strata.engine.plan.Fixtures.UPSTREAM_SLOT;
import static dev.strata.engine.plan.Fixtures.mac;
import static dev.strata.engine.plan.Fixtures.seed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.strata.engine.Backend;
import dev.strata.engine.kv.KvFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KvComparisonTest {
  @Test
  void at32kQ4SavesTheSeedsBytesAndWins241Slots() {
    KvComparison c = KvComparison.at(mac(24), seed(UPSTREAM_SLOT), 32_768, Backend.METAL, Map.of());
    assertEquals(
        new KvComparison(
            32_768, KvFormat.INT8, 416_858_112L, true, 227_377_152L, 189_480_960L, 241),
        c);
    assertEquals(
        "32768: int8 0.39 GiB, q4_0 0.21 GiB; q4_0 saves 0.18 GiB (189,480,960 B), +241 arena"
            + " slots",
        c.summary());
  }

  @Test
  void noSlotsWonWhenTheArenaAlreadyHoldsEveryExpert() {
    KvComparison c = KvComparison.at(mac(128), seed(), 32_768, Backend.METAL, Map.of());
    assertEquals(189_480_960L, c.bytesSaved());
    assertEquals(0, c.arenaSlotsWon());
  }

  @Test
  void theDefaultPathFollowsTheBackend() {
    KvComparison pc = KvComparison.at(Fixtures.linux(64), seed(), 32_768, Backend.PC, Map.of());
    assertEquals(KvFormat.FP16, pc.defaultFormat());
    assertEquals(32_896L * 2_048 * 12, pc.defaultKvBytes());
    assertEquals(32_896L * (2_048 - 576) * 12, pc.bytesSaved());
  }

  @Test
  void q4UnavailableWithoutHeadDim256() {
    KvComparison c =
        KvComparison.at(mac(48), Fixtures.withHeadDim(128), 32_768, Backend.METAL, Map.of());
    assertFalse(c.q4Available());
    assertEquals(32_896L * 2 * (128 + 4) * 2 * 12, c.defaultKvBytes());
    assertEquals(0, c.bytesSaved());
    assertEquals("32768: int8 0.19 GiB; q4_0 needs head_dim 256", c.summary());
  }
}
