package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A model cut at any byte — an interrupted download — is one TRUNCATED error whose remedy is to
 * download it again, never "became shorter while being read" (which is for a file that changes
 * under the reader) and never another kind. Every cut inside the header and key/values of the test
 * model is tried, then every 4099th byte of its tensor data, in memory.
 */
class GgufTruncationTest {

  @Test
  void everyCutOfAModelSaysDownloadItAgain() {
    byte[] whole = TinyHybridModel.bytes();
    assertNotNull(GgufReader.read(new ByteArrayChannel(whole, whole.length), "whole.gguf"));
    for (int cut = 0; cut < whole.length; cut += cut < 8192 ? 1 : 4099) {
      int at = cut;
      GgufException e =
          assertThrows(
              GgufException.class,
              () -> GgufReader.read(new ByteArrayChannel(whole, at), "cut.gguf"),
              "cut at " + at);
      assertEquals(GgufException.Kind.TRUNCATED, e.kind(), at + ": " + e.getMessage());
      assertTrue(e.getMessage().startsWith("cut.gguf: "), at + ": " + e.getMessage());
      assertTrue(e.getMessage().contains("download it again"), at + ": " + e.getMessage());
      assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }
  }
}
