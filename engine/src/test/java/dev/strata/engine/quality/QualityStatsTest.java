package dev.strata.engine.quality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strata.testsupport.RepoRoot;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link KlStats} on hand-made cases: by hand, and against bench/llamacpp/compare.py itself. */
class QualityStatsTest {
  @TempDir Path tmp;

  @Test
  void handMadeCaseByHand() {
    // vocab 3, two positions; base p = (0.5, 0.25, 0.25), other p = (0.25, 0.5, 0.25)
    double[] a = {Math.log(0.5), Math.log(0.25), Math.log(0.25)};
    double[] b = {Math.log(0.25), Math.log(0.5), Math.log(0.25)};
    KlStats s = new KlStats();
    s.add(a, 0, b, 1, 1); // next token 1
    s.add(a, 0, a, 0, 0); // identical: KL 0
    KlStats.Summary r = s.summary();
    double kl = 0.5 * Math.log(2) + 0.25 * Math.log(0.5);
    assertEquals(kl / 2, r.meanKl(), 1e-12);
    assertEquals(kl / 2, r.medianKl(), 1e-12); // median of two = their mean
    assertEquals(0.99 * kl, r.p99Kl(), 1e-12); // linear interpolation: 0 + 0.99·(kl − 0)
    assertEquals(kl, r.maxKl(), 1e-12);
    assertEquals(0.5, r.sameTop(), 0);
    assertEquals(Math.sqrt((0.25 * 0.25 + 0) / 2), r.rmsDp(), 1e-12);
    assertEquals(Math.exp((-Math.log(0.5) - Math.log(0.5)) / 2), r.ppl(), 1e-12);
    assertEquals(Math.exp((-Math.log(0.25) - Math.log(0.5)) / 2), r.pplBase(), 1e-12);
  }

  @Test
  void agreesWithComparePy() throws Exception {
    Path compare = RepoRoot.path().resolve("bench/llamacpp/compare.py");
    assumeTrue(Files.isRegularFile(compare), "bench/llamacpp/compare.py is not here");
    int nCtx = 16;
    int first = nCtx / 2;
    int nVocab = 37; // odd: the record's padding slot
    int chunks = 2;
    int scored = nCtx - 1 - first;
    Random rnd = new Random(7);
    int[] tokens = new int[chunks * nCtx];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = rnd.nextInt(nVocab);
    }
    Path a = tmp.resolve("a.logits");
    Path b = tmp.resolve("b.lpf32");
    ByteBuffer bf =
        ByteBuffer.allocate(28 + 4 * tokens.length + 4 * chunks * scored * nVocab)
            .order(ByteOrder.LITTLE_ENDIAN);
    bf.put("_lpf32__".getBytes(StandardCharsets.US_ASCII)).putInt(1).putInt(nCtx).putInt(nVocab);
    bf.putInt(chunks).putInt(first);
    for (int t : tokens) {
      bf.putInt(t);
    }
    KlStats ours = new KlStats();
    try (LogitsFile.Writer w = new LogitsFile.Writer(a, nCtx, nVocab)) {
      float[][] bRows = new float[scored][];
      for (int c = 0; c < chunks; c++) {
        float[][] aRows = new float[scored][];
        for (int k = 0; k < scored; k++) {
          float[] la = new float[nVocab];
          float[] lb = new float[nVocab];
          for (int i = 0; i < nVocab; i++) {
            la[i] = (float) (rnd.nextGaussian() * 4);
            lb[i] = la[i] + (float) (rnd.nextGaussian() * 0.3);
          }
          aRows[k] = la;
          bRows[k] = lb;
          w.record(la);
          for (float v : lb) {
            bf.putFloat(v);
          }
        }
        w.chunk(java.util.Arrays.copyOfRange(tokens, c * nCtx, (c + 1) * nCtx));
      }
      w.finish(scored);
    }
    Files.write(b, bf.array());
    // our side: A read back from the _logits_ file (as --base does), B log-softmaxed
    try (LogitsFile.Reader r = new LogitsFile.Reader(a)) {
      assertEquals(first, r.first);
      ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(b)).order(ByteOrder.LITTLE_ENDIAN);
      in.position(28 + 4 * tokens.length);
      for (int c = 0; c < chunks; c++) {
        for (int k = 0; k < scored; k++) {
          double[] la = new double[nVocab];
          int topA = r.next(la);
          float[] lb = new float[nVocab];
          for (int i = 0; i < nVocab; i++) {
            lb[i] = in.getFloat();
          }
          double[] lpb = KlStats.logSoftmax(lb);
          ours.add(la, topA, lpb, KlStats.argmax(lpb), tokens[c * nCtx + first + k + 1]);
        }
      }
    }
    Path json = tmp.resolve("c.json");
    Process p =
        new ProcessBuilder(
                "python3",
                compare.toString(),
                a.toString(),
                b.toString(),
                "--json",
                json.toString(),
                "--quiet")
            .redirectErrorStream(true)
            .start();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assumeTrue(p.waitFor(60, TimeUnit.SECONDS), "compare.py did not finish");
    assertEquals(0, p.exitValue(), log);
    String j = Files.readString(json);
    KlStats.Summary s = ours.summary();
    assertEquals(field(j, "kld_mean"), s.meanKl(), 1e-9);
    assertEquals(field(j, "kld_median"), s.medianKl(), 1e-9);
    assertEquals(field(j, "kld_p99.0"), s.p99Kl(), 1e-9);
    assertEquals(field(j, "kld_max"), s.maxKl(), 1e-9);
    assertEquals(field(j, "same_top"), s.sameTop(), 1e-12);
    assertEquals(field(j, "dp_rms"), s.rmsDp(), 1e-9);
    assertEquals(field(j, "ppl_b"), s.ppl(), 1e-9 * s.ppl());
    assertEquals(field(j, "ppl_a"), s.pplBase(), 1e-9 * s.pplBase());
  }

  static double field(String json, String name) {
    Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\":\\s*([-0-9.eE+]+)").matcher(json);
    if (!m.find()) {
      throw new AssertionError("no " + name + " in " + json);
    }
    return Double.parseDouble(m.group(1));
  }
}
