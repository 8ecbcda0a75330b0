package dev.strata.engine.quality;

import java.util.Arrays;

/**
 * llama-perplexity's {@code --kl-divergence} statistics of one distribution (B) against a base (A),
 * position by position, with bench/llamacpp/compare.py's definitions: KLD = Σ over ids with log
 * p_A(i) &gt; −16 of p_A(i)·(log p_A(i) − log p_B(i)); same top = argmax B == argmax A (first
 * maximum of each); Δp = p_B(next) − p_A(next); PPL = exp(mean −log p(next)); percentiles by linear
 * interpolation, the median as perplexity.cpp takes it.
 */
public final class KlStats {
  /** Entries of the base at or below this log-prob do not count in the KL (llama.cpp's clamp). */
  public static final double FLOOR = -16.0;

  private double nll;
  private double nllBase;
  private double kld;
  private double dp2;
  private long sameTop;
  private double[] kl = new double[256];
  private int count;

  /**
   * Adds one scored position.
   *
   * @param base the base's log-probs (normalized)
   * @param baseTop the base's argmax (first maximum)
   * @param other B's log-probs (normalized, {@link #logSoftmax})
   * @param otherTop B's argmax
   * @param next the token that follows the position
   */
  public void add(double[] base, int baseTop, double[] other, int otherTop, int next) {
    double k = 0;
    for (int i = 0; i < base.length; i++) {
      double pl = base[i];
      if (pl > FLOOR) {
        k += Math.exp(pl) * (pl - other[i]);
      }
    }
    nll -= other[next];
    nllBase -= base[next];
    kld += k;
    double d = Math.exp(other[next]) - Math.exp(base[next]);
    dp2 += d * d;
    if (baseTop == otherTop) {
      sameTop++;
    }
    if (count == kl.length) {
      kl = Arrays.copyOf(kl, count * 2);
    }
    kl[count++] = k;
  }

  /** Adds every position of {@code s}. */
  public void addAll(KlStats s) {
    nll += s.nll;
    nllBase += s.nllBase;
    kld += s.kld;
    dp2 += s.dp2;
    sameTop += s.sameTop;
    if (count + s.count > kl.length) {
      kl = Arrays.copyOf(kl, Math.max(kl.length * 2, count + s.count));
    }
    System.arraycopy(s.kl, 0, kl, count, s.count);
    count += s.count;
  }

  public int count() {
    return count;
  }

  /** The summary so far (NaN figures when nothing was added). */
  public Summary summary() {
    double[] v = Arrays.copyOf(kl, count);
    Arrays.sort(v);
    if (count == 0) {
      return new Summary(
          0,
          Double.NaN,
          Double.NaN,
          Double.NaN,
          Double.NaN,
          Double.NaN,
          Double.NaN,
          Double.NaN,
          Double.NaN);
    }
    return new Summary(
        count,
        Math.exp(nll / count),
        Math.exp(nllBase / count),
        kld / count,
        median(v),
        percentile(v, 0.99),
        v[count - 1],
        (double) sameTop / count,
        Math.sqrt(dp2 / count));
  }

  /**
   * The figures of {@link KlStats}.
   *
   * @param positions scored positions
   * @param ppl B's perplexity
   * @param pplBase the base's perplexity on the same positions
   * @param meanKl mean KL(A‖B), nats
   * @param medianKl median KL
   * @param p99Kl 99th percentile of KL (linear interpolation)
   * @param maxKl largest KL
   * @param sameTop the fraction of positions with the same top-1 ("same top p")
   * @param rmsDp RMS of Δp of the actual next token
   */
  public record Summary(
      int positions,
      double ppl,
      double pplBase,
      double meanKl,
      double medianKl,
      double p99Kl,
      double maxKl,
      double sameTop,
      double rmsDp) {
    /** ppl, pplBase, meanKl, medianKl, p99Kl, maxKl, sameTop, rmsDp: the TSV's order. */
    public double[] figures() {
      return new double[] {ppl, pplBase, meanKl, medianKl, p99Kl, maxKl, sameTop, rmsDp};
    }
  }

  /** perplexity.cpp's percentile: linear interpolation over sorted values. */
  public static double percentile(double[] sorted, double fraction) {
    if (fraction <= 0) {
      return sorted[0];
    }
    if (fraction >= 1) {
      return sorted[sorted.length - 1];
    }
    double p = fraction * (sorted.length - 1);
    int ip = (int) p;
    p -= ip;
    return (1 - p) * sorted[ip] + p * sorted[Math.min(ip + 1, sorted.length - 1)];
  }

  /** The median of sorted values (the mean of the middle two for an even count). */
  public static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 0 ? 0.5 * (sorted[n / 2] + sorted[n / 2 - 1]) : sorted[n / 2];
  }

  /** log-softmax of {@code logits} in double (the sum over shifted exponentials). */
  public static double[] logSoftmax(float[] logits) {
    double max = Double.NEGATIVE_INFINITY;
    for (float l : logits) {
      max = Math.max(max, l);
    }
    double sum = 0;
    for (float l : logits) {
      sum += Math.exp(l - max);
    }
    double shift = max + Math.log(sum);
    double[] out = new double[logits.length];
    for (int i = 0; i < logits.length; i++) {
      out[i] = logits[i] - shift;
    }
    return out;
  }

  /** The index of the first maximum. */
  public static int argmax(double[] v) {
    int best = 0;
    for (int i = 1; i < v.length; i++) {
      if (v[i] > v[best]) {
        best = i;
      }
    }
    return best;
  }
}
