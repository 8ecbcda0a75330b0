import dev.strata.cli.Io;
import dev.strata.setup.SetupCli;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * The probe's cost inside strata-setup, the way a user pays it: one JVM runs the CLI once with a
 * profile (so picocli, Jackson and the JDK's file and string machinery are initialised), then
 * `probe --json` for the first time (the first real probe), then N more times.
 * Run by bench/probe/run.sh with the setup module's class path (java source launcher).
 */
public class CliProbeCost {
  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    double profile = run("probe", "--json", "--host-file", "m4-pro-48");
    double firstProbe = run("probe", "--json");
    double[] ms = new double[n];
    for (int i = 0; i < n; i++) {
      ms[i] = run("probe", "--json");
    }
    Arrays.sort(ms);
    System.out.printf(
        Locale.ROOT,
        "in strata-setup: first command (--host-file m4-pro-48) %.1f ms; first 'probe --json' %.1f ms;"
            + " then %d runs: median %.2f ms, p90 %.2f ms%n",
        profile, firstProbe, n, ms[n / 2], ms[(int) (n * 0.9)]);
  }

  static double run(String... args) {
    StringWriter out = new StringWriter();
    Io io =
        Io.of(
            new ByteArrayInputStream(new byte[0]),
            new PrintWriter(out),
            new PrintWriter(new StringWriter()),
            Map.of(),
            false);
    long t = System.nanoTime();
    int code = SetupCli.create(io).execute(args);
    double ms = (System.nanoTime() - t) / 1e6;
    if (code != 0 || !out.toString().contains("\"cpu_cores\"")) {
      throw new IllegalStateException("strata-setup " + String.join(" ", args) + " failed: " + code);
    }
    return ms;
  }
}
