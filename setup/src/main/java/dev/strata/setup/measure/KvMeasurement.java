package dev.strata.setup.measure;

import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.quality.KlStats;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One model's KV trade-off measured on this machine ({@link KvMeasure}), as the cache keeps it and
 * the wizard's KV question quotes it.
 *
 * @param key what it was measured for: the model's shards, the engine, the text
 * @param nCtx tokens per chunk; each chunk scores positions nCtx/2 .. nCtx−2
 * @param chunks chunks evaluated
 * @param positions scored positions per format (chunks × (nCtx/2 − 1))
 * @param seconds wall time of the measurement
 * @param measuredAt when (ISO-8601 UTC)
 * @param pplReference perplexity with fp16 KV (the reference) on those positions
 * @param formats each measured format against fp16 KV, in the order measured
 */
public record KvMeasurement(
    Key key,
    int nCtx,
    int chunks,
    int positions,
    double seconds,
    String measuredAt,
    double pplReference,
    Map<KvFormat, Figures> formats) {

  public KvMeasurement {
    formats = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(formats));
  }

  /**
   * What a measurement is for; a cached one is used only when all three are equal.
   *
   * @param modelSha256 each shard's sha256 (lower-case hex), first shard first
   * @param engine the engine's {@code strata_engine_name()}, e.g. "strata-ref 0.1.0 (cpu)": its
   *     name and version
   * @param textName the text's name as shown
   * @param textSha256 the sha256 of the text's UTF-8 bytes
   */
  public record Key(List<String> modelSha256, String engine, String textName, String textSha256) {
    public Key {
      modelSha256 = List.copyOf(modelSha256);
    }
  }

  /**
   * One format's cost against fp16 KV, llama-perplexity's figures ({@link KlStats.Summary}).
   *
   * @param ppl perplexity with this format's KV
   * @param meanKl mean KL(fp16 ‖ this), nats
   * @param sameTop fraction of positions with the same top-1 token
   * @param rmsDp RMS of Δp of the actual next token
   */
  public record Figures(double ppl, double meanKl, double sameTop, double rmsDp) {
    static Figures of(KlStats.Summary s) {
      return new Figures(s.ppl(), s.meanKl(), s.sameTop(), s.rmsDp());
    }

    /** Perplexity change against fp16 KV, in percent. */
    double pplChangePercent(double reference) {
      return 100 * (ppl / reference - 1);
    }
  }

  /**
   * The trade-off text at the KV question: this model's measured figures for {@code shown} (each
   * format present), the positions and the text they were measured on.
   */
  public String quote(List<KvFormat> shown) {
    StringBuilder b =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "Measured for this model on this machine (%s; %s, %d chunks of %,d tokens, %,d"
                    + " positions scored; %s):",
                key.engine(),
                key.textName(),
                chunks,
                nCtx,
                positions,
                measuredAt.length() >= 10 ? measuredAt.substring(0, 10) : measuredAt));
    String sep = " ";
    for (KvFormat f : shown) {
      Figures x = formats.get(f);
      if (x == null) {
        continue;
      }
      b.append(sep)
          .append(
              String.format(
                  Locale.ROOT,
                  "%s against fp16 KV: same top-1 %.2f%%, mean KL %.3g, perplexity %+.2f%% (%.3f vs"
                      + " %.3f)",
                  f.flagName(),
                  100 * x.sameTop(),
                  x.meanKl(),
                  x.pplChangePercent(pplReference),
                  x.ppl(),
                  pplReference));
      sep = "; ";
    }
    return b.append('.').toString();
  }
}
