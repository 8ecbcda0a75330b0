package dev.strata.kernels;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The shared kernel test vectors: a deterministic set of 256-value head vectors and, per record
 * format, the records and decoded values the Java reference produces for them. The C++ parity
 * harness (kernels/src/test/cpp) and the Mac parity test (metal/) read the files; {@code
 * KernelVectorsGoldenTest} checks them against this generator and rewrites them with {@code
 * -Dgolden.update=true}.
 *
 * <p>Files in the folder: {@code cases.tsv} (index, category, name), {@code input.f32} (all
 * vectors, little-endian floats), and for each format {@code <label>.rec} (records) and {@code
 * <label>.dec} (decoded floats).
 */
public final class TestVectors {

  /** One head vector with its category (gaussian, outlier, zero, tiny, large, tie). */
  public record Case(String category, String name, float[] values) {
    public Case {
      if (values.length != Fwht.N) {
        throw new IllegalArgumentException("a case holds 256 values, got " + values.length);
      }
      values = values.clone();
    }

    @Override
    public float[] values() {
      return values.clone();
    }
  }

  /** Standard deviations of the Gaussian cases: tiny to large. */
  static final double[] GAUSSIAN_SCALES = {1e-4, 1e-2, 0.1, 1, 4, 100, 1000};

  private TestVectors() {}

  /** The canonical set (same every run: fixed seeds, java.util.Random's specified generator). */
  public static List<Case> cases() {
    List<Case> out = new ArrayList<>();
    Random rnd = new Random(20261129L);
    for (double s : GAUSSIAN_SCALES) {
      for (int k = 0; k < 4; k++) {
        out.add(new Case("gaussian", "gaussian sigma=" + s + " #" + k, gaussian(rnd, s)));
      }
    }
    // Outlier channels, as real K vectors have: a few fixed channels 10-40x the rest.
    int[][] channels = {{7}, {7, 100, 200}, {0, 31, 32, 255}, {3, 64, 65, 66, 190}};
    for (int k = 0; k < channels.length; k++) {
      float[] v = gaussian(rnd, 1.0);
      for (int c : channels[k]) {
        v[c] = (float) ((rnd.nextBoolean() ? 1 : -1) * (10 + 30 * rnd.nextDouble()));
      }
      out.add(new Case("outlier", "outlier channels #" + k, v));
    }
    out.add(new Case("zero", "all zero", new float[Fwht.N]));
    float[] signedZero = new float[Fwht.N];
    for (int i = 0; i < Fwht.N; i += 2) {
      signedZero[i] = -0.0f;
    }
    out.add(new Case("zero", "+0 and -0", signedZero));
    // Near fp16's smallest normal (2^-14 ≈ 6.1e-5): scales land subnormal, records round there.
    float minNormal = 0x1p-14f;
    out.add(new Case("tiny", "gaussian sigma=2^-14", gaussian(rnd, minNormal)));
    out.add(new Case("tiny", "gaussian sigma=2^-10", gaussian(rnd, 0x1p-10f)));
    float[] steps = new float[Fwht.N];
    for (int i = 0; i < Fwht.N; i++) {
      // multiples of the smallest subnormal and values straddling 2^-14
      steps[i] = (i % 2 == 0 ? 1 : -1) * (i < 128 ? i * 0x1p-24f : minNormal * (0.5f + i / 256f));
    }
    out.add(new Case("tiny", "subnormal steps", steps));
    float[] oneBlock = new float[Fwht.N];
    oneBlock[5] = minNormal;
    oneBlock[40] = -minNormal / 3;
    out.add(new Case("tiny", "two tiny spikes", oneBlock));
    // ±large, within what every format can hold (q4_0's d = 16·max/8 must stay below 65504).
    float[] large = gaussian(rnd, 6000);
    large[0] = 20000f;
    large[1] = -20000f;
    out.add(new Case("large", "gaussian sigma=6000 with +-20000", large));
    float[] alternating = new float[Fwht.N];
    for (int i = 0; i < Fwht.N; i++) {
      alternating[i] = (Integer.bitCount(i) % 2 == 0 ? 1 : -1) * 20000f;
    }
    out.add(new Case("large", "+-20000 on one Walsh function", alternating));
    float[] ramp = new float[Fwht.N];
    for (int i = 0; i < Fwht.N; i++) {
      ramp[i] = (i - 127.5f) * 150f;
    }
    out.add(new Case("large", "ramp +-19125", ramp));
    out.add(new Case("tie", "rotated +-8 ties", rotatedTies()));
    out.add(new Case("tie", "int8 halves", int8Halves()));
    return List.copyOf(out);
  }

  private static float[] gaussian(Random rnd, double sigma) {
    float[] v = new float[Fwht.N];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) (rnd.nextGaussian() * sigma);
    }
    return v;
  }

  /**
   * A vector whose rotation is exact small integers: blocks with +8 and −8 both present (the
   * signed-max tie, first occurrence wins) and codes landing exactly on .5 before truncation.
   */
  private static float[] rotatedTies() {
    double[] y = new double[Fwht.N];
    for (int b = 0; b < 8; b++) {
      for (int j = 0; j < 32; j++) {
        y[b * 32 + j] = ((j * 5 + b) % 15) - 7; // -7..7
      }
      y[b * 32 + (b % 4)] = (b % 2 == 0) ? 8 : -8;
      y[b * 32 + 20 + (b % 3)] = (b % 2 == 0) ? -8 : 8;
    }
    Fwht.fwht256(y); // integers · 16 / 16: exact in float, and rotating back gives y exactly
    float[] v = new float[Fwht.N];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) y[i];
    }
    return v;
  }

  /** int8 groups with amax 127 (d = 1) and values on exact halves: round half away from zero. */
  private static float[] int8Halves() {
    float[] v = new float[Fwht.N];
    for (int i = 0; i < Fwht.N; i++) {
      v[i] = ((i % 64) - 32) + 0.5f;
    }
    for (int g = 0; g < 4; g++) {
      v[g * 64 + 1] = g % 2 == 0 ? 127f : -127f;
    }
    return v;
  }

  // ---- files ---------------------------------------------------------------------------------

  /** The file contents for a case list: name → bytes. */
  public static List<NamedFile> files(List<Case> cases) {
    int n = cases.size();
    float[] all = new float[n * Fwht.N];
    StringBuilder tsv =
        new StringBuilder("# index\tcategory\tname (256 floats per case in input.f32)\n");
    for (int i = 0; i < n; i++) {
      Case c = cases.get(i);
      System.arraycopy(c.values, 0, all, i * Fwht.N, Fwht.N);
      tsv.append(i).append('\t').append(c.category()).append('\t').append(c.name()).append('\n');
    }
    List<NamedFile> out = new ArrayList<>();
    out.add(new NamedFile("cases.tsv", tsv.toString().getBytes(StandardCharsets.UTF_8)));
    out.add(new NamedFile("input.f32", floatsLe(all)));
    for (RecordFormat f : RecordFormat.values()) {
      byte[] rec = KvReference.encode(f, all, n, Fwht.N);
      out.add(new NamedFile(f.label() + ".rec", rec));
      out.add(new NamedFile(f.label() + ".dec", floatsLe(KvReference.decode(f, rec, n, Fwht.N))));
    }
    return out;
  }

  /** One file of the set. */
  public record NamedFile(String name, byte[] bytes) {}

  /** Writes the canonical set into dir (the golden-update path). */
  public static void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    for (NamedFile f : files(cases())) {
      Files.write(dir.resolve(f.name()), f.bytes());
    }
  }

  public static byte[] floatsLe(float[] v) {
    ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
    b.asFloatBuffer().put(v);
    return b.array();
  }

  /** Rewrites the vectors folder: {@code TestVectors <dir>}. */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: TestVectors <vectors-dir>");
      System.exit(2);
    }
    write(Path.of(args[0]));
  }
}
