package dev.strata.metal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The Mac parity test's pure part, run everywhere: its comparison rules on the shared vectors. */
class KernelVectorFilesTest {

  @Test
  void expectedRecordsPassAndCorruptedOnesFail() throws IOException {
    KernelVectorFiles v = new KernelVectorFiles(KernelVectorFiles.defaultDir());
    assertTrue(v.cases > 40);
    for (String label : new String[] {"fp16", "int8", "q4_0"}) {
      byte[] want = v.records(label);
      assertTrue(v.compareRecords(label, want, want).passes(), label);
      byte[] bad = want.clone();
      bad[3] ^= 0x40; // a code (or half) of the first record
      assertFalse(v.compareRecords(label, bad, want).passes(), label + " corrupted");
      float[] dec = v.decoded(label);
      assertEquals(0, v.compareDecoded(dec, dec));
      float[] off = dec.clone();
      off[10] = off[10] * 1.01f + 1e-3f;
      assertEquals(1, v.compareDecoded(off, dec), label);
    }
  }

  @Test
  void q4ScaleChangeIsNotExcusedAsATie() throws IOException {
    KernelVectorFiles v = new KernelVectorFiles(KernelVectorFiles.defaultDir());
    byte[] want = v.records("q4_0");
    byte[] bad = want.clone();
    bad[0] ^= 1; // the first block's fp16 d
    KernelVectorFiles.Result r = v.compareRecords("q4_0", bad, want);
    assertEquals(1, r.scaleDifferences());
    assertFalse(r.passes());
  }
}
