package dev.strata.metal;

import dev.strata.engine.host.ProbeResult;
import java.util.Arrays;
import java.util.Locale;

/**
 * The in-process probe cost (bench/probe/run.sh runs it; not a unit test, no assertion on time).
 *
 * <ul>
 *   <li>{@code ProbeBench WARMUP N}: the first call in this JVM (cold: class loading included),
 *       then N calls after WARMUP warm-up calls; prints first, median, p90 and max in ms;
 *   <li>{@code ProbeBench --once}: one probe, then exit (a fresh JVM's whole probe cost);
 *   <li>{@code ProbeBench --baseline}: exit at once (the bare JVM start to subtract).
 * </ul>
 */
public final class ProbeBench {
  private ProbeBench() {}

  public static void main(String[] args) {
    if (args.length == 1 && args[0].equals("--baseline")) {
      return;
    }
    if (args.length == 1 && args[0].equals("--once")) {
      ProbeResult r = HostProbe.probe();
      if (r.facts().cpuCores() < 1) {
        throw new IllegalStateException("probe gave no CPUs");
      }
      return;
    }
    int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    long t0 = System.nanoTime();
    ProbeResult first = HostProbe.probe();
    double firstMs = (System.nanoTime() - t0) / 1e6;
    for (int i = 0; i < warmup; i++) {
      sink ^= HostProbe.probe().facts().memoryBytes();
    }
    double[] ms = new double[n];
    for (int i = 0; i < n; i++) {
      long s = System.nanoTime();
      sink ^= HostProbe.probe().facts().memoryBytes();
      ms[i] = (System.nanoTime() - s) / 1e6;
    }
    Arrays.sort(ms);
    System.out.printf(
        Locale.ROOT,
        "probe %s: first %.3f ms; after %d warm-up calls, %d calls: median %.3f ms, p90 %.3f ms,"
            + " max %.3f ms (notes: %d)%n",
        first.facts().os(),
        firstMs,
        warmup,
        n,
        ms[n / 2],
        ms[(int) (n * 0.9)],
        ms[n - 1],
        first.notes().size());
    if (sink == 42) {
      System.out.println();
    }
  }

  private static long sink;
}
