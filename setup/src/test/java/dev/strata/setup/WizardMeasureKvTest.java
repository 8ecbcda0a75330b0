package dev.strata.setup;

import static dev.strata.testsupport.TextAssertions.assertContainsAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The KV trade-off measured for this model (issue 29 item 4): the wizard on a JLine dumb terminal
 * measures at the KV question with the real strata-ref on the committed demo model (one chunk of
 * 128 tokens), shows the measured figures there and writes the same config bytes as without
 * measuring; {@code --measure-kv} without a terminal does the same on stderr; a later run quotes
 * the cache.
 */
class WizardMeasureKvTest {
  static final Path MODELS = RepoRoot.resolve("templates/demo-model");

  @TempDir Path d;
  CliHarness c;

  @BeforeEach
  void fresh() throws IOException {
    assumeTrue(Files.isRegularFile(RepoRoot.refLibrary()), "strata-ref is not built");
    c = new CliHarness(d, MODELS);
    c.strataRoot = RepoRoot.path();
    c.env.put("STRATA_MEASURE_KV_CTX", "128");
    c.env.put("STRATA_MEASURE_KV_CHUNKS", "1");
  }

  private CliHarness.Run wizard(String typed) {
    CliHarness.Run r = c.wizard(typed, c.hostAndLib());
    assertEquals(0, r.code(), r.err() + r.terminal());
    return r;
  }

  /** The terminal's text with its wrapping undone (the wizard wraps at 80 columns). */
  static String flat(String terminal) {
    return terminal.replaceAll("\\s*\n\\s*", " ").replaceAll("(\\d\\) \\S+) +", "$1 ");
  }

  private Path cacheDir() {
    return d.resolve("home/.cache/strata/kv-quality");
  }

  @Test
  void theWizardMeasuresShowsTheFiguresAndWritesTheSameBytes() throws IOException {
    // model, context, KV, confirm: Enter at each (the default path, no --kv; a dense model is not
    // asked where its experts live)
    CliHarness.Run plain = wizard("\n\n\n\n");
    byte[] without = Files.readAllBytes(c.config);
    assertContainsAll(
        flat(plain.terminal()),
        "Upstream's table, not this model",
        "3) measure measure this model's cost on this machine first (about ",
        " on idle cores; nothing is written but the cache)");
    Files.delete(c.config);

    // the same answers, with "measure" at the KV question first
    CliHarness.Run measured = wizard("\n\nmeasure\n\n\n");
    String t = flat(measured.terminal());
    assertContainsAll(
        t,
        "measuring int8,q4_0 against fp16 KV: 1 chunks of 128 tokens of the GNU GPL v3 text",
        "chunk 1/1 done",
        "Measured for this model on this machine (strata-ref ",
        "the GNU GPL v3 text (gpl-3.0.txt, 35,149 bytes), 1 chunks of 128 tokens, 63 positions scored",
        "int8 against fp16 KV: same top-1 ",
        "q4_0 against fp16 KV: same top-1 ");
    // after measuring, the KV question is asked again with the figures and without "measure"
    String after = t.substring(t.indexOf("Measured for this model"));
    assertFalse(after.contains("3) measure"), after);
    assertEquals(new String(without), Files.readString(c.config));
    assertTrue(java.util.Arrays.equals(without, Files.readAllBytes(c.config)), "the same bytes");
    try (Stream<Path> s = Files.list(cacheDir())) {
      assertEquals(1, s.filter(p -> p.toString().endsWith(".yaml")).count());
    }

    // a later run quotes the cache at once: no "measure" answer, no upstream table
    Files.delete(c.config);
    String again = flat(wizard("\n\n\n\n").terminal());
    assertContainsAll(again, "Measured for this model on this machine", "63 positions scored");
    assertFalse(again.contains("Upstream's table") || again.contains("3) measure"), again);
  }

  @Test
  void measureKvWithoutATerminalPrintsTheFiguresAndTheSameConfig() throws IOException {
    String[] args = c.base("--yes", "--print");
    CliHarness.Run plain = c.run(args);
    assertEquals(0, plain.code(), plain.err());
    String[] measuring = java.util.Arrays.copyOf(args, args.length + 1);
    measuring[args.length] = "--measure-kv";
    CliHarness.Run m = c.run(measuring);
    assertEquals(0, m.code(), m.err());
    assertEquals(plain.out(), m.out(), "the config printed is the same");
    assertContainsAll(
        m.err(),
        "strata-setup: measuring int8,q4_0 against fp16 KV",
        "strata-setup: chunk 1/1 done",
        "strata-setup: Measured for this model on this machine");
    assertTrue(Files.isDirectory(cacheDir()));
  }

  /**
   * A real SIGINT while {@code --measure-kv} measures, in a JVM of its own (strata-setup's main):
   * the eval is cancelled, one line, exit 130, nothing printed, nothing cached.
   */
  @Test
  void ctrlCWhileMeasuringStopsWithOneLineAndCachesNothing() throws Exception {
    Path home = d.resolve("home");
    ProcessBuilder pb = measuringJvm(SetupMain.class, home, "--yes", "--print", "--measure-kv");
    Process p = pb.start();
    java.io.BufferedReader err =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(
                p.getErrorStream(), java.nio.charset.StandardCharsets.UTF_8));
    StringBuilder seen = new StringBuilder();
    String line;
    while ((line = err.readLine()) != null) {
      seen.append(line).append('\n');
      if (line.contains("chunk 1/")) {
        break; // measuring, with the Ctrl-C handler in place
      }
    }
    assertTrue(seen.toString().matches("(?s).*chunk 1/[0-9]+ done.*"), seen.toString());
    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor();
    assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "stopped after SIGINT");
    String rest =
        new String(p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(130, p.exitValue(), seen + rest);
    assertEquals(
        "strata-setup: --measure-kv: interrupted: nothing cached, nothing written",
        rest.strip(),
        seen + rest);
    assertEquals(0, p.getInputStream().readAllBytes().length, "no config printed");
    Path cache = home.resolve(".cache/strata/kv-quality");
    if (Files.isDirectory(cache)) {
      try (Stream<Path> s = Files.walk(cache)) {
        assertEquals(0, s.filter(Files::isRegularFile).count(), "nothing cached");
      }
    }
  }

  /**
   * Ctrl-C (a real SIGINT) while the wizard measures: the measurement stops, nothing is cached, the
   * KV question is asked again, and the wizard goes on to write the config (its own JVM, the keys
   * down a pipe to a dumb terminal: {@link PipedWizardMain}).
   */
  @Test
  void ctrlCWhileTheWizardMeasuresAsksTheKvQuestionAgain() throws Exception {
    Path home = d.resolve("home");
    Path config = d.resolve("cfg/engine.yaml");
    ProcessBuilder pb =
        measuringJvm(PipedWizardMain.class, home, "--engine-lib", RepoRoot.refLibrary().toString());
    pb.environment().put("STRATA_CONFIG", config.toString());
    pb.redirectErrorStream(true);
    Process p = pb.start();
    StringBuffer seen = new StringBuffer();
    Thread reader =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    byte[] b = new byte[4096];
                    int n;
                    while ((n = p.getInputStream().read(b)) > 0) {
                      seen.append(new String(b, 0, n, java.nio.charset.StandardCharsets.UTF_8));
                    }
                  } catch (IOException e) {
                    seen.append("\n(read failed: ").append(e.getMessage()).append(')');
                  }
                });
    java.io.OutputStream keys = p.getOutputStream();
    keys.write("\nmeasure\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)); // ctx, KV
    keys.flush();
    awaitText(seen, "chunk 1/", p);
    new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor();
    awaitText(seen, "measurement stopped: nothing cached", p);
    keys.write("\n\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)); // KV default, confirm
    keys.close();
    assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), seen.toString());
    reader.join(5000);
    String t = flat(seen.toString());
    assertEquals(0, p.exitValue(), t);
    String after = t.substring(t.indexOf("measurement stopped"));
    assertContainsAll(after, "Upstream's table, not this model", "3) measure", "wrote " + config);
    assertTrue(Files.isRegularFile(config), t);
    Path cache = home.resolve(".cache/strata/kv-quality");
    if (Files.isDirectory(cache)) {
      try (Stream<Path> s = Files.walk(cache)) {
        assertEquals(0, s.filter(Files::isRegularFile).count(), "nothing cached");
      }
    }
  }

  /**
   * {@code main} in a JVM of its own with this test's class path, over the demo model ({@code args}
   * after {@code --model}), HOME {@code home}, and a measurement of chunks of 256 tokens asking for
   * more than the text holds (so it is still running when the test interrupts it).
   */
  static ProcessBuilder measuringJvm(Class<?> main, Path home, String... args) {
    java.util.List<String> cmd =
        new java.util.ArrayList<>(
            java.util.List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Dstrata.root=" + RepoRoot.path(),
                "-cp",
                System.getProperty("java.class.path"),
                main.getName(),
                "--model",
                MODELS.resolve("tiny-qwen3-q4_k_m.gguf").toString()));
    cmd.addAll(java.util.Arrays.asList(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("HOME", home.toString());
    pb.environment().remove("XDG_CACHE_HOME");
    pb.environment().put("STRATA_MEASURE_KV_CTX", "256");
    pb.environment().put("STRATA_MEASURE_KV_CHUNKS", "64");
    return pb;
  }

  /** Waits (up to 60 s) until the process's output holds {@code text}. */
  static void awaitText(StringBuffer seen, String text, Process p) throws InterruptedException {
    long end = System.nanoTime() + 60_000_000_000L;
    while (!seen.toString().contains(text)) {
      assertTrue(p.isAlive() && System.nanoTime() < end, "no '" + text + "' in:\n" + seen);
      Thread.sleep(50);
    }
  }

  @Test
  void measureKvWithNothingToMeasureWithIsOneLineExitTwo() {
    c.strataRoot = null; // no strata-ref, and the config's library is another Mac's
    CliHarness.Run m = c.run(c.base("--yes", "--print", "--measure-kv"));
    assertEquals(2, m.code(), m.err());
    assertEquals("", m.out());
    assertEquals(1, m.err().strip().lines().count(), m.err());
    assertTrue(m.err().startsWith("strata-setup: --measure-kv: no engine library"), m.err());
  }
}
