package dev.strata.engine.quality;

import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.text.TerminalText;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * What an {@link Evaluation} found: the table ({@code strata-quality}'s stderr) and the JSON (its
 * stdout and {@code --out}; the record {@code strata-setup}'s KV measurement cache keeps).
 *
 * @param model the model's first shard
 * @param nCtx tokens per chunk
 * @param first the first scored position of each chunk (nCtx/2, or the base file's)
 * @param chunksDone chunks completed; chunksAsked those asked for
 * @param seconds wall time of the evaluation
 * @param formats each format's figures against the reference, in the order asked
 * @param decode the prompt path against the decode path over {@code decodeFormat}'s pools, or null
 * @param base the base file's name, or null (the reference is fp16 KV)
 * @param input the name of the text, token or base file evaluated
 */
public record Report(
    Path model,
    ModelGeometry geometry,
    int nCtx,
    int first,
    int chunksDone,
    int chunksAsked,
    double seconds,
    Map<KvFormat, KlStats> formats,
    KvFormat decodeFormat,
    KlStats decode,
    double decodeMaxAbsLogProb,
    String base,
    String input) {

  /** KV bytes of one cell (one token's K and V, every KV head) of one layer. */
  public long cellBytes(KvFormat f) {
    return f.cellBytes(geometry.kvHeads(), geometry.headDim());
  }

  /** The table, several lines, each ending in a newline. */
  public String table() {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "%nKV quality of %s: %d of %d chunks of %d tokens, positions %d..%d (%d scored), %s, %.1f s%n",
            TerminalText.escape(model.getFileName().toString()),
            chunksDone,
            chunksAsked,
            nCtx,
            first,
            nCtx - 2,
            chunksDone * (nCtx - 1 - first),
            base == null ? "reference: fp16 KV" : "reference: " + TerminalText.escape(base),
            seconds));
    b.append(
        String.format(
            Locale.ROOT,
            "%-6s %10s %10s %10s %10s %10s %10s %10s %9s %8s%n",
            "kv",
            "B/cell/lyr",
            "PPL",
            "PPL(ref)",
            "mean KL",
            "median KL",
            "p99 KL",
            "max KL",
            "same top",
            "RMS dp"));
    for (Map.Entry<KvFormat, KlStats> e : formats.entrySet()) {
      KlStats.Summary s = e.getValue().summary();
      b.append(
          String.format(
              Locale.ROOT,
              "%-6s %10d %10.4f %10.4f %10.6f %10.6f %10.6f %10.6f %8.2f%% %7.3f%%%n",
              e.getKey().flagName(),
              cellBytes(e.getKey()),
              s.ppl(),
              s.pplBase(),
              s.meanKl(),
              s.medianKl(),
              s.p99Kl(),
              s.maxKl(),
              100 * s.sameTop(),
              100 * s.rmsDp()));
    }
    if (decode != null) {
      KlStats.Summary d = decode.summary();
      b.append(
          String.format(
              Locale.ROOT,
              "prompt path vs decode path (%s pools, chunk 0, %d positions one token at a time vs batches of 32):"
                  + " mean KL %.3g, max KL %.3g, same top %.2f%%, max |dlog p| %.3g%n",
              decodeFormat.flagName(),
              d.positions(),
              d.meanKl(),
              d.maxKl(),
              100 * d.sameTop(),
              decodeMaxAbsLogProb));
    }
    return b.toString();
  }

  /** The summary as one line of JSON. */
  public String json() {
    StringBuilder b = new StringBuilder("{");
    b.append("\"model\":").append(str(model.toString()));
    b.append(",\"input\":").append(str(input));
    b.append(",\"reference\":").append(base == null ? "\"fp16\"" : str(base));
    b.append(",\"n_ctx\":").append(nCtx).append(",\"first\":").append(first);
    b.append(",\"chunks\":").append(chunksDone).append(",\"chunks_asked\":").append(chunksAsked);
    b.append(",\"complete\":").append(chunksDone == chunksAsked);
    b.append(",\"seconds\":").append(num(seconds));
    b.append(",\"formats\":{");
    boolean firstF = true;
    for (Map.Entry<KvFormat, KlStats> e : formats.entrySet()) {
      if (!firstF) {
        b.append(',');
      }
      firstF = false;
      b.append(str(e.getKey().flagName())).append(':');
      summary(b, e.getValue().summary());
      b.setLength(b.length() - 1);
      b.append(",\"bytes_per_cell_per_layer\":").append(cellBytes(e.getKey())).append('}');
    }
    b.append('}');
    if (decode != null) {
      b.append(",\"prompt_vs_decode\":");
      summary(b, decode.summary());
      b.setLength(b.length() - 1);
      b.append(",\"kv\":").append(str(decodeFormat.flagName()));
      b.append(",\"max_abs_dlogp\":").append(num(decodeMaxAbsLogProb)).append('}');
    }
    return b.append('}').toString();
  }

  private static void summary(StringBuilder b, KlStats.Summary s) {
    b.append("{\"positions\":").append(s.positions());
    b.append(",\"ppl\":").append(num(s.ppl())).append(",\"ppl_ref\":").append(num(s.pplBase()));
    b.append(",\"mean_kl\":")
        .append(num(s.meanKl()))
        .append(",\"median_kl\":")
        .append(num(s.medianKl()));
    b.append(",\"p99_kl\":").append(num(s.p99Kl())).append(",\"max_kl\":").append(num(s.maxKl()));
    b.append(",\"same_top\":")
        .append(num(s.sameTop()))
        .append(",\"rms_dp\":")
        .append(num(s.rmsDp()));
    b.append('}');
  }

  private static String num(double v) {
    return Double.isFinite(v) ? Double.toString(v) : "null";
  }

  /** {@code s} as a JSON string. */
  public static String str(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
