package dev.strata.setup;

import static dev.strata.testsupport.TextAssertions.assertContainsAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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

  /** Each test's own harness (config, library, home) over the shared model. */
  @TempDir Path d;

  CliHarness c;

  @BeforeEach
  void fresh() throws IOException {
    c = new CliHarness(d, h.model);
  }

  /** The wizard on the M4 Pro profile with the harness's library, typing {@code typed}. */
  private CliHarness.Run wizard(String typed) {
    return c.wizard(typed, c.hostAndLib());
  }

  /** {@link #wizard} that must exit 0: what the terminal showed. */
  private String answeredOk(String typed) {
    CliHarness.Run r = wizard(typed);
    assertEquals(0, r.code(), r.err() + r.terminal());
    return r.terminal();
  }

  /** The value of {@code flag} in the config the wizard wrote. */
  private String written(String flag) throws IOException {
    return arg(ConfigCodec.read(c.config), flag);
  }

  /** model path, context, experts, KV, engine library, confirmation: Enter at every one. */
  @Test
  void enterThroughEveryDefaultWritesTheSameConfigAsYes() throws IOException {
    // The model sits in the working folder: the wizard finds it and offers it as the default.
    CliHarness.Run r = wizard("\n\n\n\n\n\n");
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

  /**
   * A dense model has no experts to place: the wizard does not ask, as setup without a terminal.
   */
  @Test
  void aDenseModelIsNotAskedWhereTheExpertsLive(@TempDir Path m) throws IOException {
    Path dense = CliHarness.denseModel(m.resolve("m"));
    CliHarness dc = new CliHarness(d, dense.getParent()); // the working folder holds the model
    // Enter at every question: one fewer than the MoE model's (no experts question)
    CliHarness.Run r = dc.wizard("\n\n\n\n\n", dc.hostAndLib());
    assertEquals(0, r.code(), r.err() + r.terminal());
    assertFalse(r.terminal().contains("Experts ["), r.terminal());
    Path viaYes = d.resolve("yes.yaml");
    CliHarness.Run y = dc.run(dc.base("--yes", "--out", viaYes.toString()));
    assertEquals(0, y.code(), y.err());
    assertEquals(Files.readString(viaYes), Files.readString(dc.config), "the same plan default");
    // (an MoE model still is: the harness's own model, questionsShowDefaultsAndTheKvTradeOff…)
  }

  @Test
  void questionsShowDefaultsAndTheKvTradeOffInNumbers() throws IOException {
    String t = answeredOk("\n4\n1\n\n\n");
    // sizes in the plan's binary units: 416,858,112 B = 397.5 MiB, 227,377,152 B = 216.8 MiB
    assertContainsAll(
        t,
        "4) 32768   KV int8 397.5 MiB · q4_0 216.8 MiB",
        "Context [262144]:",
        "at 32,768 tokens q4_0 saves 180.7 MiB (397.5 MiB → 216.8 MiB)");
    assertTrue(t.contains("expert slots in the stream arena") || t.contains("wins no slots"), t);
    assertContainsAll(t, "KV format [default]:");
    // nothing measured here (no strata-ref in this harness): upstream's table, said as upstream's
    assertContainsAll(
        t.replace('\n', ' '),
        "Upstream's table, not this model:",
        "94.45% of the time, mean KL 0.034, +1.7% perplexity on 1K-token segments");
    assertEquals("32768", written("--ctx"));
    assertFalse(ConfigCodec.read(c.config).args().contains("--kv"), "no --kv unless asked");
  }

  @Test
  void aWrongAnswerIsAskedAgainWithTheReason() throws IOException {
    String t =
        answeredOk(
            "/nowhere\n\nlots\n-5\n99999999999999999999\n8192\n"
                + "sometimes\nstream\nq4\nq4_0\nmaybe\ny\n");
    assertContainsAll(
        t,
        "/nowhere: no such file",
        "'lots' is not a whole number",
        "-5 is out of range: between 1 and 1048576",
        "99999999999999999999 is out of range: between 1 and 1048576",
        "'sometimes' is not one of the options",
        "'q4' is not one of the options",
        "'maybe' is not one of the options");
    assertEquals("8192", written("--ctx"));
    EngineConfig cfg = ConfigCodec.read(c.config);
    assertEquals(
        java.util.List.of("--kv", "q4_0"),
        cfg.args().subList(cfg.args().size() - 2, cfg.args().size()));
  }

  @Test
  void aBadModelFolderIsAskedAgainWithTheGgufError() throws IOException {
    Path bad = d.resolve("bad");
    Files.createDirectories(bad);
    Files.writeString(bad.resolve("x-00001-of-00002.gguf"), "not gguf");
    String t = answeredOk(bad + "\n" + c.model + "\n\n\n\n\n");
    assertTrue(t.contains(bad.toString()), t);
    assertTrue(t.contains("try again"), t);
  }

  @Test
  void ctrlCAtTheFirstQuestionWritesNothingAndExits130() throws IOException {
    CliHarness.Run r = c.wizard("\u0003", "--host-file", "m4-pro-48");
    assertEquals(130, r.code(), r.err() + r.terminal());
    assertEquals("strata-setup: cancelled (Ctrl-C): nothing written\n", r.err());
    assertFalse(Files.exists(c.config.getParent()), "nothing written, not even the folder");
  }

  @Test
  void endOfInputMidwayWritesNothingAndExits130() throws IOException {
    CliHarness.Run r = wizard("\n\n");
    assertEquals(130, r.code(), r.err() + r.terminal());
    assertEquals("strata-setup: cancelled (end of input): nothing written\n", r.err());
    assertFalse(Files.exists(c.config));
  }

  @Test
  void noAtTheConfirmationWritesNothing() throws IOException {
    CliHarness.Run r = wizard("\n\n\n\nno\n");
    assertEquals(130, r.code());
    assertFalse(Files.exists(c.config));
  }

  @Test
  void anExistingConfigShowsTheDiffBeforeOverwriting() throws IOException {
    assertEquals(0, wizard("\n4\n\n\n\n").code());
    String t = answeredOk("\n5\n\n\n\n");
    assertTrue(t.contains("exists; the changes, old → new:"), t);
    assertTrue(t.contains("-- '32768'\n+- '65536'"), t);
    assertTrue(Files.exists(c.config.resolveSibling("engine.yaml.bak")));

    // A hand edit: the wizard asks before replacing it, and no (the default) keeps it.
    Files.writeString(c.config, Files.readString(c.config).replace("'65536'", "'60000'"));
    CliHarness.Run kept = wizard("\n4\n\n\n\n");
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
  void backReturnsToThePreviousQuestionKeepingLaterAnswers() throws IOException {
    // model, context 32768, stream, q4_0, then at the summary: back x3 to the context, 65536,
    // Enter through the kept stream and q4_0, then the summary
    String t = answeredOk("\n4\nstream\nq4_0\n<\n<\nback\n5\n\n\n\n");
    assertTrue(t.contains("Experts [stream]:"), "the kept answer is the default: " + t);
    assertTrue(t.contains("KV format [q4_0]:"), t);
    assertTrue(t.contains("Context [32768]:"), "back at the context, 32768 kept: " + t);
    EngineConfig cfg = ConfigCodec.read(c.config);
    assertEquals("65536", arg(cfg, "--ctx"));
    assertEquals("stream", arg(cfg, "--experts"));
    assertEquals("q4_0", arg(cfg, "--kv"));
  }

  /** Answers the wizard takes with a word on the terminal, and still writes the config. */
  @ParameterizedTest(name = "{0}")
  @MethodSource
  void aNoteOnTheWay(String what, String typed, String shown) {
    String t = answeredOk(typed);
    assertTrue(t.contains(shown), t);
  }

  static Stream<Arguments> aNoteOnTheWay() {
    return Stream.of(
        arguments(
            "back at the first question", "<\n\n\n\n\n\n", "there is no question before this one"),
        arguments(
            "a context above the trained one is warned",
            "\n300000\nstream\n\n\n",
            "300,000 tokens is above the model's trained context (262,144)"));
  }

  /** The summary: a number picks the answer to change, then the summary again; Enter writes. */
  @Test
  void theSummaryChangesOneAnswerBeforeWriting() throws IOException {
    String t = answeredOk("\n\n\n\n2\n8192\n\n");
    assertTrue(t.contains("Summary"), t);
    assertTrue(t.contains("2) context  262,144 tokens"), t);
    assertTrue(t.contains("2) context  8,192 tokens"), "the summary again, changed: " + t);
    assertTrue(t.contains("6) yes      write " + c.config), t);
    assertEquals("8192", written("--ctx"));
    // the other answers are the planned defaults, as with --yes
    assertEquals("resident", written("--experts"));
  }

  @Test
  void noAtTheSummaryWritesNothing() throws IOException {
    CliHarness.Run r = wizard("\n\n\n\n7\n");
    assertEquals(130, r.code(), r.err() + r.terminal());
    assertFalse(Files.exists(c.config));
  }

  /** A second run over a config starts from that config's answers, not the planned defaults. */
  @Test
  void aSecondRunStartsFromTheExistingConfig() throws IOException {
    assertEquals(0, wizard("\n4\nstream\nq4_0\n\n").code());
    String first = Files.readString(c.config);
    String t = answeredOk("\n\n\n\n\n");
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
  void freeContextSizesAreTakenAndRoundedWhenTheEngineNeedsMore() throws IOException {
    String t = answeredOk("\n5000\n\n\n\n");
    assertTrue(t.contains("context 5000: KV int8 "), t);
    assertEquals("5000", written("--ctx"));

    answeredOk("\n48k\n\n\n\n");
    assertEquals("49152", written("--ctx"));

    String small = answeredOk("\n99\n\n\n\n");
    assertTrue(small.contains("99 rounded up to 448: the cpu-reference engine's workload"), small);
    assertEquals("448", written("--ctx"));
  }

  /** With every expert resident there is no arena to win slots in: the KV text says so. */
  @Test
  void theKvTradeOffFollowsTheExpertsMode() throws IOException {
    String t = answeredOk("\n4\nresident\n\n\n");
    assertTrue(t.contains("with every expert resident"), t);
    assertFalse(t.contains("expert slots in the stream arena"), t);
  }

  /**
   * The wizard on the M4 24 GB profile, where every expert resident fits at 5,000 tokens with q4_0
   * but not at 524,288: a change the plan refuses.
   */
  private CliHarness.Run onM4With24Gb(String typed) {
    return c.wizard(typed, "--host-file", "m4-24", "--engine-lib", c.lib.toString());
  }

  /** The config written holds these answers. */
  private void assertWritten(String ctx, String experts, String kv) throws IOException {
    EngineConfig cfg = ConfigCodec.read(c.config);
    assertEquals(
        java.util.List.of(ctx, experts, kv),
        java.util.Arrays.asList(arg(cfg, "--ctx"), arg(cfg, "--experts"), arg(cfg, "--kv")));
  }

  private static final String FIVE_THOUSAND_RESIDENT_Q4 = "\n5000\nresident\nq4_0\n";

  /**
   * From the summary, a context that does not fit resident: every answer is kept, the summary says
   * which answer would make it fit in its own words (no flag), and < returns to the summary before.
   */
  @Test
  void aChangeThatDoesNotFitKeepsEveryAnswerAndBackReturnsToTheSummary() throws IOException {
    CliHarness.Run r = onM4With24Gb(FIVE_THOUSAND_RESIDENT_Q4 + "2\n524288\n<\n\n");
    assertEquals(0, r.code(), r.err() + r.terminal());
    String t = r.terminal();
    String afterChange = t.substring(t.indexOf("This does not fit: resident:"));
    assertContainsAll(
        afterChange,
        "It fits with one of these answers changed",
        "2) context: 262,144 tokens or fewer (now 524,288)",
        "3) experts: stream",
        "2) context  524,288 tokens",
        "4) kv       --kv q4_0",
        "6) yes      does not fit yet",
        "Change which answer? [experts]:");
    assertFalse(t.contains("use --"), "advice in the wizard's words, not flags: " + t);
    assertFalse(t.contains("there is no question before this one"), t);
    // < went back to the summary that fit, with the answers before the change
    String back = afterChange.substring(afterChange.indexOf("Change which answer?"));
    assertContainsAll(back, "2) context  5,000 tokens", "3) experts  resident", "Write ");
    assertWritten("5000", "resident", "q4_0");
  }

  /** Enter at that summary follows the advice (experts, then stream); the other answers stay. */
  @Test
  void enterAtASummaryThatDoesNotFitFollowsTheAdviceKeepingTheOtherAnswers() throws IOException {
    CliHarness.Run r = onM4With24Gb(FIVE_THOUSAND_RESIDENT_Q4 + "2\n524288\n\n\n\n");
    assertEquals(0, r.code(), r.err() + r.terminal());
    assertTrue(r.terminal().contains("Experts [stream]:"), r.terminal());
    assertWritten("524288", "stream", "q4_0");
  }

  /**
   * The context asked again from there lists the answer that does not fit and the last one that did
   * (5000, not a standard size), offers what fits, and yes before a change is refused.
   */
  @Test
  void theContextAskedAgainListsBothAnswersAndYesWaitsForAFit() throws IOException {
    CliHarness.Run r = onM4With24Gb(FIVE_THOUSAND_RESIDENT_Q4 + "2\n524288\nyes\n2\n\n\n");
    assertEquals(0, r.code(), r.err() + r.terminal());
    String t = r.terminal();
    assertContainsAll(t, "it does not fit yet: pick an answer to change first");
    String asked = t.substring(t.lastIndexOf("Context — "));
    assertContainsAll(asked, ") 5000  ", ") 524288  ", "Context [262144]:");
    assertWritten("262144", "resident", "q4_0");
  }

  /**
   * The questions answered in order to a plan that does not fit: nothing is dropped, < goes back
   * into the last question with its answer as the default.
   */
  @Test
  void answersThatDoNotFitAreKeptAndBackReturnsToTheLastQuestion() throws IOException {
    CliHarness.Run r = onM4With24Gb("\n524288\nresident\nq4_0\n<\n\nexperts\nstream\n\n");
    assertEquals(0, r.code(), r.err() + r.terminal());
    String t = r.terminal();
    String after = t.substring(t.indexOf("This does not fit"));
    assertContainsAll(after, "KV format [q4_0]:", "3) experts  resident", "Experts [stream]:");
    assertFalse(t.contains("Choose again"), t);
    assertWritten("524288", "stream", "q4_0");
  }

  /**
   * A config for another Mac (a host file) names that Mac's library, which this machine does not
   * have: the wizard takes it as {@code --engine-lib} does (no sha256), and writes the same bytes.
   */
  @Test
  void theWizardTakesAnotherMacsLibraryAsTheFlagDoes() throws IOException {
    String there = "/opt/strata/lib/libstrata.dylib";
    CliHarness.Run r = c.wizard("\n4\nstream\n\n" + there + "\n\n", "--host-file", "m4-pro-48");
    assertEquals(0, r.code(), r.err() + r.terminal());
    assertContainsAll(
        r.terminal(),
        "it need not exist here",
        there + " is not on this machine: the config names it");
    EngineConfig cfg = ConfigCodec.read(c.config);
    assertEquals(there, cfg.engine().library());
    assertEquals(null, cfg.engine().sha256());

    Path flags = d.resolve("flags.yaml");
    CliHarness.Run y =
        c.run(
            "--model",
            c.model.toString(),
            "--host-file",
            "m4-pro-48",
            "--engine-lib",
            there,
            "--ctx",
            "32768",
            "--experts",
            "stream",
            "--yes",
            "--out",
            flags.toString());
    assertEquals(0, y.code(), y.err());
    assertEquals(Files.readString(flags), Files.readString(c.config));
  }
}
