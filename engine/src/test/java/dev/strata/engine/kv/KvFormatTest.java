package dev.strata.engine.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.Backend;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the seed's figures (docs/ENGINE-CONTRACT.md, KV formats): these numbers are facts, not
 * choices.
 */
class KvFormatTest {
  private static final int HEADS = 2;
  private static final int DIM = 256;
  private static final int QSA = 12;

  @Test
  void bytesPerCellForTwoHeadsOf256() {
    assertEquals(2048, KvFormat.FP16.cellBytes(HEADS, DIM));
    assertEquals(1056, KvFormat.INT8.cellBytes(HEADS, DIM));
    assertEquals(576, KvFormat.Q4_0.cellBytes(HEADS, DIM));
    assertEquals(816, KvFormat.K8V4.cellBytes(HEADS, DIM));
  }

  @Test
  void vectorRecords() {
    assertEquals(512, KvFormat.FP16.kRecordBytes(DIM));
    assertEquals(264, KvFormat.INT8.kRecordBytes(DIM));
    assertEquals(144, KvFormat.Q4_0.kRecordBytes(DIM));
    assertEquals(264, KvFormat.K8V4.kRecordBytes(DIM));
    assertEquals(144, KvFormat.K8V4.vRecordBytes(DIM));
  }

  @Test
  void poolsAt32kAnd64k() {
    assertEquals(32_896, KvFormat.cells(32_768));
    assertEquals(65_664, KvFormat.cells(65_536));
    assertEquals(227_377_152L, KvFormat.Q4_0.poolBytes(32_768, HEADS, DIM, QSA));
    assertEquals(416_858_112L, KvFormat.INT8.poolBytes(32_768, HEADS, DIM, QSA));
    assertEquals(453_869_568L, KvFormat.Q4_0.poolBytes(65_536, HEADS, DIM, QSA));
    assertEquals(832_094_208L, KvFormat.INT8.poolBytes(65_536, HEADS, DIM, QSA));
  }

  @Test
  void badGeometryIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> KvFormat.Q4_0.cellBytes(2, 128));
    assertThrows(IllegalArgumentException.class, () -> KvFormat.INT8.cellBytes(2, 100));
    assertThrows(IllegalArgumentException.class, () -> KvFormat.INT8.cellBytes(0, 256));
    assertThrows(IllegalArgumentException.class, () -> KvFormat.cells(0));
  }

  @Test
  void namesAndIdsRoundTrip() {
    for (KvFormat f : KvFormat.values()) {
      assertEquals(f, KvFormat.fromName(f.flagName()));
      assertEquals(f, KvFormat.fromId(f.id()));
    }
    assertEquals(null, KvFormat.fromName("q8_0"));
  }

  @Test
  void k8v4IsRefusedOnMetalWithTheUpstreamText() {
    KvDecision d = KvRules.decide(Backend.METAL, KvFormat.K8V4, Map.of());
    assertEquals(
        "metal window: --kv k8v4 is not implemented on Metal (use fp16, int8 or q4_0)",
        assertInstanceOf(KvDecision.Refused.class, d).message());
    assertInstanceOf(
        KvDecision.Refused.class, KvRules.decide(Backend.CPU_REFERENCE, KvFormat.K8V4, Map.of()));
    assertInstanceOf(
        KvDecision.Accepted.class, KvRules.decide(Backend.PC, KvFormat.K8V4, Map.of()));
  }

  @Test
  void kvRotIsRefusedOnlyNextToInt8() {
    Map<String, String> rot = Map.of("STRATA_KV_ROT", "1");
    var refused =
        assertInstanceOf(
            KvDecision.Refused.class, KvRules.decide(Backend.METAL, KvFormat.INT8, rot));
    org.junit.jupiter.api.Assertions.assertTrue(refused.message().contains("STRATA_KV_ROT=1"));
    org.junit.jupiter.api.Assertions.assertTrue(refused.message().contains("--kv int8"));
    for (KvFormat f : new KvFormat[] {null, KvFormat.FP16, KvFormat.Q4_0}) {
      assertInstanceOf(KvDecision.Accepted.class, KvRules.decide(Backend.METAL, f, rot));
    }
    assertInstanceOf(
        KvDecision.Accepted.class,
        KvRules.decide(Backend.METAL, KvFormat.INT8, Map.of("STRATA_KV_ROT", "0")));
  }

  @Test
  void fp16MapsToTheInt8PoolsOnMetalAndSaysSo() {
    var a =
        assertInstanceOf(
            KvDecision.Accepted.class, KvRules.decide(Backend.METAL, KvFormat.FP16, Map.of()));
    assertEquals(KvFormat.INT8, a.pools());
    assertEquals(java.util.List.of(KvRules.FP16_ON_METAL_NOTE), a.notes());
    var def =
        assertInstanceOf(KvDecision.Accepted.class, KvRules.decide(Backend.METAL, null, Map.of()));
    assertEquals(KvFormat.INT8, def.pools());
    assertEquals(java.util.List.of(), def.notes());
  }

  /** strata-ref's --kv fp16 pools are real fp16 (2,048 B per cell for 2 × 256), with no note. */
  @Test
  void fp16IsRealFp16PoolsOnStrataRef() {
    var a =
        assertInstanceOf(
            KvDecision.Accepted.class,
            KvRules.decide(Backend.CPU_REFERENCE, KvFormat.FP16, Map.of()));
    assertEquals(KvFormat.FP16, a.pools());
    assertEquals(java.util.List.of(), a.notes());
    assertEquals(2_048, a.pools().cellBytes(2, 256));
    var def =
        assertInstanceOf(
            KvDecision.Accepted.class, KvRules.decide(Backend.CPU_REFERENCE, null, Map.of()));
    assertEquals(KvFormat.INT8, def.pools());
  }

  /** The pool formats of each backend follow from decide: one decision, no second table. */
  @Test
  void poolFormatsFollowTheDecision() {
    assertEquals(
        java.util.List.of(KvFormat.INT8, KvFormat.Q4_0), KvRules.poolFormats(Backend.METAL));
    assertEquals(
        java.util.List.of(KvFormat.FP16, KvFormat.INT8, KvFormat.Q4_0),
        KvRules.poolFormats(Backend.CPU_REFERENCE));
    assertEquals(java.util.List.of(KvFormat.values()), KvRules.poolFormats(Backend.PC));
  }

  /** STRATA_KV_ROT set to each of {@code values} turns the rotation {@code on} (or not). */
  private static void assertKvRot(boolean on, String... values) {
    for (String v : values) {
      assertEquals(on, KvRules.kvRotOn(v), "STRATA_KV_ROT=" + v);
    }
  }

  @Test
  void kvRotParsesLikeAtoi() {
    assertKvRot(true, "1", " 2x");
    assertKvRot(false, "0", "yes", "", null);
  }

  @Test
  void aModelWithoutQsaLayersHasEmptyPoolsAndAZeroHeadDimIsRefused() {
    // a recurrent-only stack has no KV pools; a negative count or an empty head is a bad file
    assertEquals(0, KvFormat.FP16.poolBytes(4096, HEADS, DIM, 0));
    assertEquals(0, KvFormat.Q4_0.poolBytes(4096, HEADS, DIM, 0));
    assertThrows(
        IllegalArgumentException.class, () -> KvFormat.FP16.poolBytes(4096, HEADS, DIM, -1));
    assertThrows(IllegalArgumentException.class, () -> KvFormat.FP16.kRecordBytes(0));
    assertThrows(IllegalArgumentException.class, () -> KvFormat.FP16.cellBytes(HEADS, 0));
    assertEquals(2, KvFormat.FP16.kRecordBytes(1));
  }

  @Test
  void thePcEngineRotatesOnlyItsInt8PoolsAndSaysSo() {
    Map<String, String> rot = Map.of("STRATA_KV_ROT", "1");
    var int8 =
        assertInstanceOf(KvDecision.Accepted.class, KvRules.decide(Backend.PC, KvFormat.INT8, rot));
    assertEquals(KvFormat.INT8, int8.pools());
    assertEquals(
        java.util.List.of("kv: STRATA_KV_ROT=1 rotates the int8 pools (FWHT-256)"), int8.notes());
    // no rotation asked, or pools that are not int8: nothing to say
    var plain =
        assertInstanceOf(
            KvDecision.Accepted.class, KvRules.decide(Backend.PC, KvFormat.INT8, Map.of()));
    assertEquals(java.util.List.of(), plain.notes());
    for (KvFormat f : new KvFormat[] {null, KvFormat.FP16, KvFormat.Q4_0, KvFormat.K8V4}) {
      var a = assertInstanceOf(KvDecision.Accepted.class, KvRules.decide(Backend.PC, f, rot));
      assertEquals(java.util.List.of(), a.notes(), String.valueOf(f));
      assertEquals(f == null ? KvFormat.FP16 : f, a.pools());
    }
  }

  @Test
  void kvRotTakesASignLikeAtoi() {
    // strata-ref reads the switch as atoi does (strata_switch_on, memory.c): a sign before the
    // digits counts
    assertKvRot(true, "+1", "-1", "\t\n 007");
    assertKvRot(false, "+0", "-", "+-1", "000");
  }

  @Test
  void acceptedOrGivesTheAcceptanceOrThrowsTheRefusal() {
    KvDecision.Accepted a =
        KvRules.decide(Backend.PC, KvFormat.K8V4, Map.of()).acceptedOr(IllegalStateException::new);
    assertEquals(KvFormat.K8V4, a.requested());
    KvDecision refused = KvRules.decide(Backend.METAL, KvFormat.K8V4, Map.of());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> refused.acceptedOr(IllegalArgumentException::new));
    assertEquals(((KvDecision.Refused) refused).message(), e.getMessage());
  }
}
