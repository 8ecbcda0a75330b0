package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of {@code strata-ref-run} (engine/native/tools, built beside the library): strata-ref's
 * own driver as a process of its own, so the resident set and the allocations it logs are the
 * engine's, not a JVM's.
 *
 * @param code the exit code
 * @param lines standard output and error, merged in the order written
 */
record RefRun(int code, List<String> lines) {

  /** How long a run may take: the slowest (a 4K-context prefill on 2 shared cores) takes ~1 min. */
  static final long TIMEOUT_SECONDS = 300;

  /** The driver beside the built strata-ref. */
  static Path driver() {
    Path driver = E2e.refLibrary().resolveSibling("strata-ref-run");
    assertTrue(Files.isExecutable(driver), "the driver is built at " + driver);
    return driver;
  }

  /**
   * Runs {@code strata-ref-run MODE --model MODEL ARGS…} with only {@code env}'s switches: none of
   * the test runner's own {@code STRATA_*} environment reaches it.
   *
   * @param mode {@code run} (main's workload) or {@code check} (strata_engine_check)
   */
  static RefRun of(String mode, Path model, List<String> args, Map<String, String> env)
      throws Exception {
    List<String> cmd = new ArrayList<>(List.of(driver().toString(), mode, "--model"));
    cmd.add(model.toString());
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("STRATA_"));
    pb.environment().putAll(env);
    Process proc = pb.start();
    byte[] out = proc.getInputStream().readAllBytes();
    assertTrue(proc.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS), "strata-ref-run finished");
    return new RefRun(proc.exitValue(), new String(out, StandardCharsets.UTF_8).lines().toList());
  }

  /** Every line, for a failure's message. */
  String text() {
    return String.join("\n", lines);
  }

  /**
   * The first of {@code lines} that {@code p} matches whole.
   *
   * @throws AssertionError naming {@code p} and {@code context} when none does
   */
  static Matcher find(List<String> lines, Pattern p, String context) {
    for (String l : lines) {
      Matcher m = p.matcher(l);
      if (m.matches()) {
        return m;
      }
    }
    throw new AssertionError("no line matching " + p + " in " + context);
  }
}
