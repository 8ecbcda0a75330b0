package dev.strata.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.strata.engine.plan.ExpectedReads;
import dev.strata.engine.plan.ExpertArena;
import dev.strata.engine.text.Json;
import dev.strata.launcher.run.RunSummary;
import org.junit.jupiter.api.Test;

/** A run's decode reads beside the plan's expectation (docs/PLAN.md "Expected reads"). */
class ReadsReportTest {
  // uniform: 16 x (1 - 25/64) = 9.75 misses x 313,344 B = 3,055,104 B per token
  private static final ExpectedReads UNIFORM =
      ExpectedReads.of(new ExpertArena(313_344, 25, 64, 16, 0), "lru", null);

  private static RunSummary arena(String tail) {
    RunSummary s = new RunSummary();
    s.line(
        "arena: mode=stream slots=25 slots_used=25 lookups=6144 hits=3000 misses=3144 miss_rate=0.5"
            + " bytes_read=985153536 bytes_read_per_token=2565504 evictions=3119 read_seconds=0.5"
            + " policy=lru cache=keep"
            + tail);
    return s;
  }

  @Test
  void theDecodesFiguresAreSaidBesideTheExpectation() {
    // 256 decoded tokens, 2,400 misses, 752,025,600 B: 2,937,600 B per token, 0.9615x of 3,055,104
    ReadsReport r =
        ReadsReport.of(
            UNIFORM, arena(" decode_tokens=256 decode_misses=2400 decode_read_bytes=752025600"));
    assertEquals(2_937_600, r.bytesPerToken());
    assertEquals(
        "reads: 2.8 MiB per decoded token measured (9.38 misses over 256 tokens), the plan expected"
            + " 2.9 MiB (lru, uniform routing): 0.96x",
        r.line());
    assertEquals(
        "{\"reads\":{\"decode_tokens\":256,\"measured_bytes_per_token\":2937600,"
            + "\"expected_bytes_per_token\":3055104,\"basis\":\"uniform\",\"policy\":\"lru\","
            + "\"measured_over_expected\":0.9615}}",
        Json.write(
                false,
                g -> {
                  g.writeStartObject();
                  r.writeJson(g);
                  g.writeEndObject();
                })
            .replaceAll("\\s+", ""));
  }

  @Test
  void nothingWithoutTheDecodeFiguresOrAnExpectation() {
    assertNull(ReadsReport.of(UNIFORM, arena("")));
    assertNull(
        ReadsReport.of(UNIFORM, arena(" decode_tokens=0 decode_misses=0 decode_read_bytes=0")));
    assertNull(
        ReadsReport.of(
            (ExpectedReads) null, arena(" decode_tokens=4 decode_misses=1 decode_read_bytes=10")));
  }
}
