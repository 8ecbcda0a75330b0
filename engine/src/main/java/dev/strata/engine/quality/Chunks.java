package dev.strata.engine.quality;

import dev.strata.engine.ffm.Logits;
import dev.strata.engine.ffm.Session;
import dev.strata.engine.kv.KvFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The scoring of one chunk after another ({@link Evaluation}'s loop body): the reference's
 * log-probs (the fp16 session's, or the base file's next records), each format's against them, and
 * on chunk 0 the prompt path against the decode path. Accumulates the totals and the TSV rows.
 */
final class Chunks {
  static final String TSV_HEADER =
      "chunk\tformat\tpositions\tppl\tppl_ref\tmean_kl\tmedian_kl\tp99_kl\tmax_kl\tsame_top\trms_dp";

  final Map<KvFormat, Session> byFormat;
  final Session ref; // null with a base file
  final LogitsFile.Reader base;
  final Layout layout;
  final Map<KvFormat, KlStats> total = new LinkedHashMap<>();
  final KlStats decode = new KlStats();
  final List<String> tsv = new ArrayList<>(List.of(TSV_HEADER));
  double decodeMaxAbs;

  /**
   * Where a chunk is scored.
   *
   * @param nCtx tokens per chunk
   * @param first the first scored position (nCtx/2, or the base file's)
   * @param nVocab the vocabulary
   * @param decodeFormat whose pools the decode path is checked on
   * @param decodeN positions of chunk 0 checked one token at a time (0: none)
   */
  record Layout(int nCtx, int first, int nVocab, KvFormat decodeFormat, int decodeN) {
    /** Scored positions per chunk: first .. nCtx−2. */
    int scored() {
      return nCtx - 1 - first;
    }
  }

  /**
   * @param formats the formats scored, in the order asked
   * @param byFormat a session per format (and the fp16 reference's)
   * @param ref the fp16 reference's session, or null with a base file
   */
  Chunks(
      List<KvFormat> formats,
      Map<KvFormat, Session> byFormat,
      Session ref,
      LogitsFile.Reader base,
      Layout layout) {
    this.byFormat = byFormat;
    this.ref = ref;
    this.base = base;
    this.layout = layout;
    formats.forEach(f -> total.put(f, new KlStats()));
  }

  /** Scores chunk {@code c} ({@code nCtx} tokens); a cancelled eval throws SessionException. */
  void run(int c, int[] chunk, LogitsFile.Writer save) throws IOException {
    int[] input = Arrays.copyOf(chunk, layout.nCtx() - 1);
    double[][] refLp = new double[layout.scored()][];
    int[] refTop = new int[layout.scored()];
    if (base != null) {
      for (int k = 0; k < layout.scored(); k++) {
        refLp[k] = new double[layout.nVocab()];
        refTop[k] = base.next(refLp[k]);
      }
    } else {
      ref.truncate(0, 0);
      Logits l = ref.eval(0, input, layout.first());
      for (int k = 0; k < layout.scored(); k++) {
        float[] row = l.row(k);
        refLp[k] = KlStats.logSoftmax(row);
        refTop[k] = KlStats.argmax(refLp[k]);
        if (save != null) {
          save.record(row);
        }
      }
    }
    Map<KvFormat, KlStats> perChunk = new LinkedHashMap<>();
    double[][] batchLp = null;
    for (KvFormat f : total.keySet()) {
      KlStats st = new KlStats();
      Session s = byFormat.get(f);
      boolean keep = c == 0 && layout.decodeN() > 0 && f == layout.decodeFormat();
      if (s == ref) {
        for (int k = 0; k < layout.scored(); k++) {
          st.add(refLp[k], refTop[k], refLp[k], refTop[k], chunk[layout.first() + k + 1]);
        }
        if (keep) {
          batchLp = Arrays.copyOf(refLp, layout.decodeN());
        }
      } else {
        s.truncate(0, 0);
        Logits l = s.eval(0, input, layout.first());
        double[][] lps = new double[layout.scored()][];
        for (int k = 0; k < layout.scored(); k++) {
          lps[k] = KlStats.logSoftmax(l.row(k));
          st.add(
              refLp[k], refTop[k], lps[k], KlStats.argmax(lps[k]), chunk[layout.first() + k + 1]);
        }
        if (keep) {
          batchLp = Arrays.copyOf(lps, layout.decodeN());
        }
      }
      perChunk.put(f, st);
    }
    if (batchLp != null) {
      decodePath(input, chunk, batchLp);
    }
    for (Map.Entry<KvFormat, KlStats> e : perChunk.entrySet()) {
      total.get(e.getKey()).addAll(e.getValue());
      tsv.add(c + "\t" + e.getKey().flagName() + "\t" + tsvRow(e.getValue().summary()));
    }
    if (save != null) {
      save.chunk(chunk);
    }
  }

  /** The first {@code decodeN} scored positions one token at a time against the batch rows. */
  private void decodePath(int[] input, int[] chunk, double[][] batchLp) {
    Session s = byFormat.get(layout.decodeFormat());
    s.truncate(0, 0);
    s.eval(0, Arrays.copyOf(input, layout.first()), layout.first());
    for (int k = 0; k < layout.decodeN(); k++) {
      Logits l = s.eval(0, new int[] {input[layout.first() + k]}, 0);
      double[] lp = KlStats.logSoftmax(l.row(0));
      for (int i = 0; i < layout.nVocab(); i++) {
        decodeMaxAbs = Math.max(decodeMaxAbs, Math.abs(lp[i] - batchLp[k][i]));
      }
      decode.add(
          batchLp[k],
          KlStats.argmax(batchLp[k]),
          lp,
          KlStats.argmax(lp),
          chunk[layout.first() + k + 1]);
    }
  }

  static String tsvRow(KlStats.Summary s) {
    StringBuilder b = new StringBuilder().append(s.positions());
    for (double v : s.figures()) {
      b.append('\t').append(String.format(Locale.ROOT, "%.8g", v));
    }
    return b.toString();
  }
}
