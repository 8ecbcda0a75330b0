package dev.strata.setup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Sha256;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.write.ConfigWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** strata-setup without a terminal: flags, --answers, --print, writing, refusals. */
class SetupCommandTest {
  static CliHarness h;

  @BeforeAll
  static void model(@TempDir Path shared) throws IOException {
    h = new CliHarness(shared);
  }

  /** A refused run: exit {@code code} and nothing on stdout; returns its stderr. */
  private static String refused(int code, String... args) {
    CliHarness.Run r = h.run(args);
    assertEquals(code, r.code(), r.err());
    assertEquals("", r.out(), "a refusal prints nothing on stdout");
    return r.err();
  }

  @Test
  void printWritesTheConfigToStdoutOnly() {
    CliHarness.Run r = h.run(h.base("--ctx", "32768", "--experts", "stream", "--print"));
    assertEquals(0, r.code(), r.err());
    assertEquals("", r.err());
    EngineConfig c = ConfigCodec.read(r.out(), "stdout");
    assertEquals("cpu-reference", c.engine().backend(), "strata-ref by the library's name");
    assertEquals(Sha256.hex(bytes(h.lib)), c.engine().sha256(), "the library's hash pinned");
    assertEquals(4, c.model().shards().size());
    assertTrue(c.args().contains("32768"));
    assertFalse(Files.exists(h.config), "--print writes nothing");
  }

  @Test
  void kvQ4AppendsExactlyThePairAndChangesNoOtherByte() {
    String plain = h.run(h.base("--ctx", "32768", "--experts", "stream", "--print")).out();
    String q4 =
        h.run(h.base("--ctx", "32768", "--experts", "stream", "--kv", "q4_0", "--print")).out();
    assertEquals(plain.replace("\nenv:", "\n- --kv\n- q4_0\nenv:"), q4);
  }

  @Test
  void withoutHostFileTheMachineIsProbed() {
    CliHarness.Run r = h.run(h.modelAndLib("--yes", "--print"));
    assertEquals(0, r.code(), r.err());
    assertEquals(CliHarness.m4(), ConfigCodec.read(r.out(), "stdout").host());
  }

  @Test
  void missingAnswersWithoutATerminalAreAllNamedInOneMessage() {
    assertEquals(
        "strata-setup: no terminal to ask on, and missing: --model PATH, --ctx N, --experts"
            + " stream|resident (pass them, or --answers FILE, or --yes to take the planned"
            + " defaults for --ctx and --experts)\n",
        refused(2, "--host-file", "m4-pro-48"));
    assertFalse(Files.exists(h.config));
  }

  @Test
  void llamaCppsCtxSizeIsAnsweredWithOurCtx() {
    assertTrue(
        refused(2, h.base("--ctx-size", "4096", "--print"))
            .startsWith("strata-setup: unknown option '--ctx-size' (did you mean --ctx?)\n"),
        "llama.cpp's -c/--ctx-size is our --ctx");
  }

  @Test
  void aDenseModelWithoutATerminalIsNotAskedForExperts(@TempDir Path d) throws IOException {
    Path dense = CliHarness.denseModel(d.resolve("m"));
    String[] flags = {"--model", dense.toString(), "--engine-lib", h.lib.toString()};
    CliHarness.Run r = h.run(concat(flags, "--host-file", "m4-pro-48", "--ctx", "512", "--print"));
    assertEquals(0, r.code(), r.err());
    EngineConfig c = ConfigCodec.read(r.out(), "stdout");
    assertTrue(c.args().contains("--experts"), "the plan's default written: " + c.args());
    // what is still missing is named without --experts
    assertEquals(
        "strata-setup: no terminal to ask on, and missing: --ctx N (pass them, or --answers"
            + " FILE, or --yes to take the planned defaults for --ctx and --experts)\n",
        refused(2, concat(flags, "--host-file", "m4-pro-48")));
    // an MoE model still is
    assertTrue(refused(2, h.base("--ctx", "8192")).contains("missing: --experts stream|resident"));
  }

  private static String[] concat(String[] first, String... more) {
    String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
    System.arraycopy(more, 0, all, first.length, more.length);
    return all;
  }

  @Test
  void yesTakesThePlannedDefaultsWritesAndShowsThePlan(@TempDir Path d) throws IOException {
    Path out = d.resolve("e.yaml");
    CliHarness.Run r = h.run(h.base("--yes", "--out", out.toString()));
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("memory plan: cpu-reference"), r.out());
    assertTrue(r.out().endsWith("wrote " + out + "\n"), r.out());
    // issue 28: and what launches it, on stderr (as the demo says it)
    assertTrue(
        r.err().startsWith("launch it: ") && r.err().endsWith(" launch --config " + out + "\n")
            || r.err().equals("launch it: strata-launch --config " + out + "\n"),
        r.err());
    EngineConfig c = ConfigCodec.read(out);
    assertEquals(h.model.resolve("strata-demo-00001-of-00004.gguf").toString(), c.args().get(1));
  }

  @Test
  void rewriteKeepsBakAndHandEditIsKeptWithoutForce(@TempDir Path d) throws IOException {
    Path out = d.resolve("e.yaml");
    assertEquals(
        0, h.run(h.base("--ctx", "8192", "--experts", "stream", "--out", out.toString())).code());
    String first = Files.readString(out);
    CliHarness.Run again =
        h.run(h.base("--ctx", "16384", "--experts", "stream", "--out", out.toString()));
    assertEquals(0, again.code(), again.err());
    assertEquals(first, Files.readString(ConfigWriter.backupOf(out)), "previous config kept");

    String edited = Files.readString(out).replace("'16384'", "'12345'");
    Files.writeString(out, edited);
    CliHarness.Run kept =
        h.run(h.base("--ctx", "32768", "--experts", "stream", "--out", out.toString()));
    assertEquals(2, kept.code());
    assertTrue(kept.err().contains("edited by hand") && kept.err().contains("--force"), kept.err());
    assertTrue(kept.err().contains("-- '12345'\n+- '32768'\n"), kept.err());
    assertEquals(edited, Files.readString(out), "the hand edit is untouched");

    CliHarness.Run forced =
        h.run(h.base("--ctx", "32768", "--experts", "stream", "--force", "--out", out.toString()));
    assertEquals(0, forced.code(), forced.err());
    assertEquals(edited, Files.readString(ConfigWriter.backupOf(out)));
  }

  @Test
  void answersFileStandsInForFlagsAndFlagsWin(@TempDir Path d) throws IOException {
    Path answers = d.resolve("answers.yaml");
    Files.writeString(
        answers,
        "model: "
            + h.model
            + "\nctx: 8192\nexperts: stream\nengine-lib: "
            + h.lib
            + "\nhost-file: m4-pro-48\n");
    CliHarness.Run r = h.run("--answers", answers.toString(), "--ctx", "4096", "--print");
    assertEquals(0, r.code(), r.err());
    EngineConfig c = ConfigCodec.read(r.out(), "stdout");
    assertEquals("4096", c.args().get(c.args().indexOf("--ctx") + 1));

    Files.writeString(answers, "model: m\nctz: 8192\n");
    String bad = refused(2, "--answers", answers.toString(), "--print");
    assertTrue(bad.startsWith("strata-setup: " + answers + ":2: unknown key 'ctz'"), bad);
  }

  @Test
  void aPlanThatCannotFitIsRefusedWithExit3() {
    String err =
        refused(
            3,
            h.modelAndLib(
                "--host-file", "m1-8", "--ctx", "65536", "--experts", "resident", "--print"));
    assertTrue(err.startsWith("strata-setup: resident: "), err);
  }

  @Test
  void badInputsAreOneLineUsageErrors() {
    CliHarness.Run notModel = h.run(h.base("--ctx", "8192", "--experts", "stream", "--print"));
    assertEquals(0, notModel.code());
    String badFolder =
        refused(
            2,
            "--model",
            h.dir.resolve("nope").toString(),
            "--engine-lib",
            h.lib.toString(),
            "--host-file",
            "m4-pro-48",
            "--yes",
            "--print");
    assertEquals(1, badFolder.lines().count(), badFolder);
    refused(2, h.base("--host-file", "m9-ultra", "--yes", "--print"));
    String badMode = refused(2, h.base("--experts", "streaming", "--ctx", "1", "--print"));
    assertTrue(badMode.contains("is not one of stream, resident"), badMode);
    assertEquals(
        "strata-setup: metal window: --kv k8v4 is not implemented on Metal (use fp16, int8 or"
            + " q4_0)\n",
        refused(2, h.base("--ctx", "8192", "--experts", "stream", "--kv", "k8v4", "--print")));
    refused(2, h.base("--ctx", "0", "--experts", "stream", "--print"));
  }

  @Test
  void mistypedFlagSuggestsTheRightOne() {
    String err = refused(2, "--ctz", "8192");
    assertTrue(err.contains("did you mean --ctx?"), err);
  }

  @Test
  void helpTeachesAndVersionAnswers() {
    CliHarness.Run help = h.run("--help");
    assertEquals(0, help.code());
    for (String s : new String[] {"--kv=FORMAT", "q4_0", "Exit codes:", "130", "Examples:"}) {
      assertTrue(help.out().contains(s), s + " in\n" + help.out());
    }
    CliHarness.Run v = h.run("--version");
    assertTrue(v.out().startsWith("strata-setup 0.1.0\nJava "), v.out());
  }

  @Test
  void completionScriptIsValidBash(@TempDir Path d) throws Exception {
    CliHarness.Run r = h.run("completion", "bash");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("complete -F"), "registers a completion function");
    assertTrue(r.out().contains("--experts"));
    Path script = d.resolve("c.bash");
    Files.writeString(script, r.out());
    Process p =
        new ProcessBuilder("bash", "-n", script.toString()).redirectErrorStream(true).start();
    String msg = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), msg);
    CliHarness.Run zsh = h.run("completion", "zsh");
    assertTrue(zsh.out().startsWith("autoload -U +X compinit"), zsh.out());
  }

  private static byte[] bytes(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** --ctx takes 32k (x 1,024) as the wizard and the answers file do; a bad size says how. */
  @Test
  void ctxTakesKSuffixesAndExplainsABadSize() {
    CliHarness.Run k = h.run(h.base("--ctx", "32k", "--experts", "stream", "--print"));
    assertEquals(0, k.code(), k.err());
    assertEquals(h.run(h.base("--ctx", "32768", "--experts", "stream", "--print")).out(), k.out());
    String bad = refused(2, h.base("--ctx", "32kb", "--experts", "stream", "--print"));
    assertTrue(bad.contains("'32kb' is not a context size"), bad);
  }

  /**
   * A context strata-ref's workload cannot run in is refused before anything is written, in setup's
   * words with the smallest --ctx that works; that one is written and reads back (the reader
   * applies the same pool rule, docs/CONFIG.md).
   */
  @Test
  void aContextTooSmallForTheWorkloadIsRefusedAndTheSmallestThatWorksReadsBack(@TempDir Path d)
      throws IOException {
    Path out = d.resolve("c10.yaml");
    for (String ctx : new String[] {"10", "447"}) {
      assertEquals(
          "strata-setup: --ctx "
              + ctx
              + " is too small for strata-ref's workload (--prompt-tokens 512 + --n-predict 64 ="
              + " 576 tokens in a pool of --ctx + 128 cells): use --ctx 448 or more\n",
          refused(2, h.modelAndLib("--ctx", ctx, "--experts", "stream", "--out", out.toString())));
      assertFalse(Files.exists(out), "nothing written");
    }
    CliHarness.Run r =
        h.run(h.modelAndLib("--ctx", "448", "--experts", "stream", "--out", out.toString()));
    assertEquals(0, r.code(), r.err());
    EngineConfig c = ConfigCodec.read(Files.readString(out), out.toString());
    assertEquals(448, c.engineArgs().ctx());
  }

  /** A number out of range is told the range (0, negative, too large, too large to hold). */
  @Test
  void ctxNumbersOutOfRangeAreToldTheRange() {
    for (String ctx : new String[] {"0", "-5", "1048577", "99999999999999999999", "-5k"}) {
      assertEquals(
          "strata-setup: --ctx: " + ctx + " is out of range (a whole number in 1..1048576)\n",
          refused(2, h.base("--ctx", ctx, "--experts", "stream", "--print")),
          ctx);
    }
    // a short --kv value gets its hint as Q4_0 does
    String q4 = refused(2, h.base("--ctx", "4096", "--experts", "stream", "--kv", "q4", "--print"));
    assertTrue(
        q4.startsWith(
            "strata-setup: Invalid value for option '--kv': 'q4' is not one of"
                + " fp16, int8, q4_0, k8v4 (did you mean q4_0?)\n"),
        q4);
  }

  /** Above the trained context: a warning on stderr, with --print too (stdout stays the YAML). */
  @Test
  void aContextAboveTheTrainedOneWarnsOnStderr() {
    CliHarness.Run r = h.run(h.base("--ctx", "300000", "--experts", "stream", "--print"));
    assertEquals(0, r.code(), r.err());
    assertTrue(
        r.err().contains("warning: --ctx 300000 is above the model's trained context 262144"),
        r.err());
    ConfigCodec.read(r.out(), "stdout");
  }
}
