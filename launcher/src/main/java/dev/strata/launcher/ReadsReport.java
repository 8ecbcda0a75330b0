package dev.strata.launcher;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.strata.engine.plan.ExpectedReads;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.text.ByteSize;
import dev.strata.launcher.run.RunSummary;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;

/**
 * A run's measured expert reads beside the plan's expectation (issue 30 item 4; docs/PLAN.md
 * "Expected reads"): the engine's {@code arena:} line gives the decode phase's own {@code
 * decode_tokens}, {@code decode_misses} and {@code decode_read_bytes}; the plan gives {@link
 * ExpectedReads}. Absent (null, nothing written) when either is missing: a dense model, a resident
 * run, a run that decoded nothing.
 *
 * @param decodeTokens tokens the run decoded
 * @param misses the decode's arena misses
 * @param readBytes the decode's bytes read from the SSD
 * @param expected the plan's expectation
 */
record ReadsReport(long decodeTokens, long misses, long readBytes, ExpectedReads expected) {

  /** The report of a run, or null when the engine or the plan has no figure. */
  static ReadsReport of(MemoryPlan plan, RunSummary summary) {
    return plan == null ? null : of(plan.reads(), summary);
  }

  /** The report of a run against this expectation (null: none), or null. */
  static ReadsReport of(ExpectedReads expected, RunSummary summary) {
    if (expected == null || summary == null) {
      return null;
    }
    Map<String, String> a = summary.section("arena");
    try {
      long tokens = Long.parseLong(a.getOrDefault("decode_tokens", "0"));
      if (!"stream".equals(a.get("mode")) || tokens < 1) {
        return null;
      }
      return new ReadsReport(
          tokens,
          Long.parseLong(a.get("decode_misses")),
          Long.parseLong(a.get("decode_read_bytes")),
          expected);
    } catch (NumberFormatException | NullPointerException e) {
      return null; // an engine without the decode figures (not strata-ref): nothing to compare
    }
  }

  /** Measured bytes read per decoded token. */
  long bytesPerToken() {
    return Math.round((double) readBytes / decodeTokens);
  }

  /** Measured / expected bytes per token; NaN when nothing was expected. */
  double ratio() {
    return expected.bytesPerToken() > 0
        ? (double) readBytes / decodeTokens / expected.bytesPerToken()
        : Double.NaN;
  }

  /**
   * One line for the person who launched: {@code reads: 2.8 MiB per decoded token measured (9.41
   * misses), the plan expected 2.6 MiB (lru, uniform routing): 1.08x}.
   */
  String line() {
    String basis =
        switch (expected.basis()) {
          case UNIFORM -> "uniform routing";
          case PROFILE -> "routing recorded in " + expected.source();
          case EVERY_EXPERT -> "every expert held";
        };
    return "reads: "
        + ByteSize.iec(bytesPerToken())
        + " per decoded token measured ("
        + String.format(Locale.ROOT, "%.2f", (double) misses / decodeTokens)
        + " misses over "
        + decodeTokens
        + " tokens), the plan expected "
        + ByteSize.iec(expected.bytesPerToken())
        + " ("
        + expected.policy()
        + ", "
        + basis
        + ")"
        + (Double.isNaN(ratio()) ? "" : String.format(Locale.ROOT, ": %.2fx", ratio()));
  }

  /** {@code "reads": {…}} into the run's JSON object. */
  void writeJson(JsonGenerator g) throws IOException {
    g.writeObjectFieldStart("reads");
    g.writeNumberField("decode_tokens", decodeTokens);
    g.writeNumberField("measured_bytes_per_token", bytesPerToken());
    g.writeNumberField("expected_bytes_per_token", expected.bytesPerToken());
    g.writeStringField("basis", expected.basis().name().toLowerCase(Locale.ROOT));
    g.writeStringField("policy", expected.policy());
    if (!Double.isNaN(ratio())) {
      g.writeFieldName("measured_over_expected");
      g.writeNumber(String.format(Locale.ROOT, "%.4f", ratio()));
    }
    g.writeEndObject();
  }
}
