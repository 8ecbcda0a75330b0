package dev.strata.setup;

import static dev.strata.testsupport.TextAssertions.assertContainsAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wizard end to end: the real command on a JLine dumb terminal fed from a pipe, as JLine's own
 * tests drive it.
 */
class WizardTest {
  static CliHarness h;

  @BeforeAll
  static void model(@TempDir Path shared) throws IOException {
    h = new CliHarness(shared);
  }

  private CliHarness fresh(Path dir) throws IOException {
    return new CliHarness(dir, h.model);
  }

  /** model path, context, experts, KV, engine library, confirmation: Enter at every one. */
  @Test
  void enterThroughEveryDefaultWritesTheSameConfigAsYes(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    // The model sits in the working folder: the wizard finds it and offers it as the default.
    CliHarness.Run r = c.wizard("\n\n\n\n\n\n", c.hostAndLib());
    // --engine-lib given: 5 questions (model, context, experts, KV, confirm)
    assertEquals(0, r.code(), r.err() + r.terminal());
    assertTrue(r.terminal().contains("model: " + c.model), r.terminal());
    assertTrue(r.terminal().contains("Write " + c.config + "? [yes]"), r.terminal());
    assertEquals("wrote " + c.config + "\n", r.out());
    EngineConfig wrote = ConfigCodec.read(c.config);

    Path viaYes = d.resolve("yes.yaml");
    CliHarness.Run y = c.run(c.base("--yes", "--out", viaYes.toString()));
    assertEquals(0, y.code(), y.err());
    assertEquals(Files.readString(viaYes), Files.readString(c.config));
    assertEquals(wrote, ConfigCodec.read(viaYes));
  }

  @Test
  void questionsShowDefaultsAndTheKvTradeOffInNumbers(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    CliHarness.Run r = c.wizard("\n4\n1\n\n\n", c.hostAndLib());
    assertEquals(0, r.code(), r.err() + r.terminal());
    String t = r.terminal();
    // sizes in the plan's binary units: 416,858,112 B = 397.5 MiB, 227,377,152 B = 216.8 MiB
    assertContainsAll(
        t,
        "4) 32768   KV int8 397.5 MiB · q4_0 216.8 MiB",
        "Context [262144]:",
        "at 32,768 tokens q4_0 saves 180.7 MiB (397.5 MiB → 216.8 MiB)");
    assertTrue(t.contains("expert slots in the stream arena") || t.contains("wins no slots"), t);
    assertContainsAll(t, "+1.7% perplexity on 1K-token segments", "KV format [default]:");
    EngineConfig cfg = ConfigCodec.read(c.config);
    assertEquals("32768", cfg.args().get(cfg.args().indexOf("--ctx") + 1));
    assertFalse(cfg.args().contains("--kv"), "no --kv unless asked");
  }

  @Test
  void aWrongAnswerIsAskedAgainWithTheReason(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    CliHarness.Run r =
        c.wizard("/nowhere\n\nlots\n8192\nsometimes\nstream\nq4\nq4_0\nmaybe\ny\n", c.hostAndLib());
    assertEquals(0, r.code(), r.err() + r.terminal());
    String t = r.terminal();
    assertContainsAll(
        t,
        "/nowhere: no such file",
        "'lots' is not a whole number",
        "'sometimes' is not one of the options",
        "'q4' is not one of the options",
        "'maybe' is not one of the options");
    EngineConfig cfg = ConfigCodec.read(c.config);
    assertEquals("8192", cfg.args().get(cfg.args().indexOf("--ctx") + 1));
    assertEquals(
        java.util.List.of("--kv", "q4_0"),
        cfg.args().subList(cfg.args().size() - 2, cfg.args().size()));
  }

  @Test
  void aBadModelFolderIsAskedAgainWithTheGgufError(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    Path bad = d.resolve("bad");
    Files.createDirectories(bad);
    Files.writeString(bad.resolve("x-00001-of-00002.gguf"), "not gguf");
    CliHarness.Run r = c.wizard(bad + "\n" + c.model + "\n\n\n\n\n", c.hostAndLib());
    assertEquals(0, r.code(), r.err() + r.terminal());
    assertTrue(r.terminal().contains(bad.toString()), r.terminal());
    assertTrue(r.terminal().contains("try again"), r.terminal());
  }

  @Test
  void ctrlCAtTheFirstQuestionWritesNothingAndExits130(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    CliHarness.Run r = c.wizard("\u0003", "--host-file", "m4-pro-48");
    assertEquals(130, r.code(), r.err() + r.terminal());
    assertEquals("strata-setup: cancelled (Ctrl-C): nothing written\n", r.err());
    assertFalse(Files.exists(c.config.getParent()), "nothing written, not even the folder");
  }

  @Test
  void endOfInputMidwayWritesNothingAndExits130(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    CliHarness.Run r = c.wizard("\n\n", c.hostAndLib());
    assertEquals(130, r.code(), r.err() + r.terminal());
    assertEquals("strata-setup: cancelled (end of input): nothing written\n", r.err());
    assertFalse(Files.exists(c.config));
  }

  @Test
  void noAtTheConfirmationWritesNothing(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    CliHarness.Run r = c.wizard("\n\n\n\nno\n", c.hostAndLib());
    assertEquals(130, r.code());
    assertFalse(Files.exists(c.config));
  }

  @Test
  void anExistingConfigShowsTheDiffBeforeOverwriting(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    String[] flags = c.hostAndLib();
    assertEquals(0, c.wizard("\n4\n\n\n\n", flags).code());
    CliHarness.Run r = c.wizard("\n5\n\n\n\n", flags);
    assertEquals(0, r.code(), r.err() + r.terminal());
    assertTrue(r.terminal().contains("exists; the changes, old → new:"), r.terminal());
    assertTrue(r.terminal().contains("-- '32768'\n+- '65536'"), r.terminal());
    assertTrue(Files.exists(c.config.resolveSibling("engine.yaml.bak")));

    // A hand edit: the wizard asks before replacing it, and no (the default) keeps it.
    Files.writeString(c.config, Files.readString(c.config).replace("'65536'", "'60000'"));
    CliHarness.Run kept = c.wizard("\n4\n\n\n\n", flags);
    assertEquals(130, kept.code());
    assertTrue(kept.terminal().contains("edited by hand"), kept.terminal());
    assertTrue(Files.readString(c.config).contains("'60000'"));
  }

  private static String arg(EngineConfig cfg, String flag) {
    int i = cfg.args().indexOf(flag);
    return i < 0 ? null : cfg.args().get(i + 1);
  }

  /** < goes back one question; the answers after it are kept and offered as the defaults. */
  @Test
  void backReturnsToThePreviousQuestionKeepingLaterAnswers(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    // model, context 32768, stream, q4_0, then at the summary: back x3 to the context, 65536,
    // Enter through the kept stream and q4_0, then the summary
    CliHarness.Run r = c.wizard("\n4\nstream\nq4_0\n<\n<\nback\n5\n\n\n\n", c.hostAndLib());
    assertEquals(0, r.code(), r.err() + r.terminal());
    String t = r.terminal();
    assertTrue(t.contains("Experts [stream]:"), "the kept answer is the default: " + t);
    assertTrue(t.contains("KV format [q4_0]:"), t);
    assertTrue(t.contains("Context [32768]:"), "back at the context, 32768 kept: " + t);
    EngineConfig cfg = ConfigCodec.read(c.config);
    assertEquals("65536", arg(cfg, "--ctx"));
    assertEquals("stream", arg(cfg, "--experts"));
    assertEquals("q4_0", arg(cfg, "--kv"));
  }

  @Test
  void backAtTheFirstQuestionSaysThereIsNothingBefore(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    CliHarness.Run r = c.wizard("<\n\n\n\n\n\n", c.hostAndLib());
    assertEquals(0, r.code(), r.err() + r.terminal());
    assertTrue(r.terminal().contains("there is no question before this one"), r.terminal());
  }

  /** The summary: a number picks the answer to change, then the summary again; Enter writes. */
  @Test
  void theSummaryChangesOneAnswerBeforeWriting(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    CliHarness.Run r = c.wizard("\n\n\n\n2\n8192\n\n", c.hostAndLib());
    assertEquals(0, r.code(), r.err() + r.terminal());
    String t = r.terminal();
    assertTrue(t.contains("Summary"), t);
    assertTrue(t.contains("2) context  262,144 tokens"), t);
    assertTrue(t.contains("2) context  8,192 tokens"), "the summary again, changed: " + t);
    assertTrue(t.contains("6) yes      write " + c.config), t);
    assertEquals("8192", arg(ConfigCodec.read(c.config), "--ctx"));
    // the other answers are the planned defaults, as with --yes
    assertEquals("resident", arg(ConfigCodec.read(c.config), "--experts"));
  }

  @Test
  void noAtTheSummaryWritesNothing(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    CliHarness.Run r = c.wizard("\n\n\n\n7\n", c.hostAndLib());
    assertEquals(130, r.code(), r.err() + r.terminal());
    assertFalse(Files.exists(c.config));
  }

  /** A second run over a config starts from that config's answers, not the planned defaults. */
  @Test
  void aSecondRunStartsFromTheExistingConfig(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    String[] flags = c.hostAndLib();
    assertEquals(0, c.wizard("\n4\nstream\nq4_0\n\n", flags).code());
    String first = Files.readString(c.config);
    CliHarness.Run r = c.wizard("\n\n\n\n\n", flags);
    assertEquals(0, r.code(), r.err() + r.terminal());
    String t = r.terminal();
    assertContainsAll(
        t,
        "Context [32768]:",
        "Experts [stream]:",
        "KV format [q4_0]:",
        "already holds exactly this");
    assertEquals(first, Files.readString(c.config));
  }

  /** Any size in tokens, not only the listed ones; too small for the workload: rounded, said so. */
  @Test
  void freeContextSizesAreTakenAndRoundedWhenTheEngineNeedsMore(@TempDir Path d)
      throws IOException {
    CliHarness c = fresh(d);
    String[] flags = c.hostAndLib();
    CliHarness.Run r = c.wizard("\n5000\n\n\n\n", flags);
    assertEquals(0, r.code(), r.err() + r.terminal());
    assertTrue(r.terminal().contains("context 5000: KV int8 "), r.terminal());
    assertEquals("5000", arg(ConfigCodec.read(c.config), "--ctx"));

    CliHarness.Run k = c.wizard("\n48k\n\n\n\n", flags);
    assertEquals(0, k.code(), k.err() + k.terminal());
    assertEquals("49152", arg(ConfigCodec.read(c.config), "--ctx"));

    CliHarness.Run small = c.wizard("\n99\n\n\n\n", flags);
    assertEquals(0, small.code(), small.err() + small.terminal());
    assertTrue(
        small.terminal().contains("99 rounded up to 448: the cpu-reference engine's workload"),
        small.terminal());
    assertEquals("448", arg(ConfigCodec.read(c.config), "--ctx"));
  }

  @Test
  void aContextAboveTheTrainedOneIsWarnedWhenGiven(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    CliHarness.Run r = c.wizard("\n300000\nstream\n\n\n", c.hostAndLib());
    assertEquals(0, r.code(), r.err() + r.terminal());
    assertTrue(
        r.terminal().contains("300,000 tokens is above the model's trained context (262,144)"),
        r.terminal());
  }

  /** With every expert resident there is no arena to win slots in: the KV text says so. */
  @Test
  void theKvTradeOffFollowsTheExpertsMode(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    String[] flags = c.hostAndLib();
    CliHarness.Run r = c.wizard("\n4\nresident\n\n\n", flags);
    assertEquals(0, r.code(), r.err() + r.terminal());
    assertTrue(r.terminal().contains("with every expert resident"), r.terminal());
    assertFalse(r.terminal().contains("expert slots in the stream arena"), r.terminal());
  }
}
