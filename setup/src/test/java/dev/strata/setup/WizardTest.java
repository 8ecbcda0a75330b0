package dev.strata.setup;

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
  @TempDir static Path shared;
  static CliHarness h;

  @BeforeAll
  static void model() throws IOException {
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
    CliHarness.Run r =
        c.wizard("\n\n\n\n\n\n", "--host-file", "m4-pro-48", "--engine-lib", c.lib.toString());
    // --engine-lib given: 5 questions (model, context, experts, KV, confirm)
    assertEquals(0, r.code(), r.err() + r.terminal());
    assertTrue(r.terminal().contains("model: " + c.model), r.terminal());
    assertTrue(r.terminal().contains("Write " + c.config + "? [yes]"), r.terminal());
    assertEquals("wrote " + c.config + "\n", r.out());
    EngineConfig wrote = ConfigCodec.read(c.config);

    Path viaYes = d.resolve("yes.yaml");
    CliHarness.Run y =
        c.run(
            "--host-file",
            "m4-pro-48",
            "--engine-lib",
            c.lib.toString(),
            "--model",
            c.model.toString(),
            "--yes",
            "--out",
            viaYes.toString());
    assertEquals(0, y.code(), y.err());
    assertEquals(Files.readString(viaYes), Files.readString(c.config));
    assertEquals(wrote, ConfigCodec.read(viaYes));
  }

  @Test
  void questionsShowDefaultsAndTheKvTradeOffInNumbers(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    CliHarness.Run r =
        c.wizard("\n4\n1\n\n\n", "--host-file", "m4-pro-48", "--engine-lib", c.lib.toString());
    assertEquals(0, r.code(), r.err() + r.terminal());
    String t = r.terminal();
    assertTrue(t.contains("4) 32768   KV int8 416.9 MB · q4_0 227.4 MB"), t);
    assertTrue(t.contains("Context [262144]:"), t);
    assertTrue(t.contains("at 32,768 tokens q4_0 saves 189.5 MB (416.9 MB → 227.4 MB)"), t);
    assertTrue(t.contains("+1.7% perplexity on 1K-token segments"), t);
    assertTrue(t.contains("KV format [default]:"), t);
    EngineConfig cfg = ConfigCodec.read(c.config);
    assertEquals("32768", cfg.args().get(cfg.args().indexOf("--ctx") + 1));
    assertFalse(cfg.args().contains("--kv"), "no --kv unless asked");
  }

  @Test
  void aWrongAnswerIsAskedAgainWithTheReason(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    CliHarness.Run r =
        c.wizard(
            "/nowhere\n\n99\n8192\nsometimes\nstream\nq4\nq4_0\nmaybe\ny\n",
            "--host-file",
            "m4-pro-48",
            "--engine-lib",
            c.lib.toString());
    assertEquals(0, r.code(), r.err() + r.terminal());
    String t = r.terminal();
    assertTrue(t.contains("/nowhere: no such file"), t);
    assertTrue(t.contains("'99' is not one of the options"), t);
    assertTrue(t.contains("'sometimes' is not one of the options"), t);
    assertTrue(t.contains("'q4' is not one of the options"), t);
    assertTrue(t.contains("answer yes or no"), t);
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
    CliHarness.Run r =
        c.wizard(
            bad + "\n" + c.model + "\n\n\n\n\n",
            "--host-file",
            "m4-pro-48",
            "--engine-lib",
            c.lib.toString());
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
    CliHarness.Run r =
        c.wizard("\n\n", "--host-file", "m4-pro-48", "--engine-lib", c.lib.toString());
    assertEquals(130, r.code(), r.err() + r.terminal());
    assertEquals("strata-setup: cancelled (end of input): nothing written\n", r.err());
    assertFalse(Files.exists(c.config));
  }

  @Test
  void noAtTheConfirmationWritesNothing(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    CliHarness.Run r =
        c.wizard("\n\n\n\nno\n", "--host-file", "m4-pro-48", "--engine-lib", c.lib.toString());
    assertEquals(130, r.code());
    assertFalse(Files.exists(c.config));
  }

  @Test
  void anExistingConfigShowsTheDiffBeforeOverwriting(@TempDir Path d) throws IOException {
    CliHarness c = fresh(d);
    String[] flags = {"--host-file", "m4-pro-48", "--engine-lib", c.lib.toString()};
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
}
