package dev.strata.setup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strata.engine.model.DemoModel;
import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SetupEngineCheck} through strata-setup on this machine with the real strata-ref: a config
 * for the seed geometry (qwen3next, which strata-ref does not compute) is written and the engine's
 * refusal said in place of "launch it"; a model strata-ref runs still gets the hint.
 */
class SetupEngineCheckTest {
  @TempDir Path tmp;

  static Path lib() {
    Path lib = RepoRoot.refLibrary();
    assumeTrue(Files.isRegularFile(lib), "strata-ref is not built (./strata build)");
    return lib;
  }

  CliHarness.Run setup(Path model, Path out) {
    return setup(model, "--out", out.toString());
  }

  /** strata-setup on {@code model} with the engine library pinned, then {@code where}. */
  CliHarness.Run setup(Path model, String... where) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--model",
                model.toString(),
                "--engine-lib",
                lib().toString(),
                "--ctx",
                "4096",
                "--experts",
                "stream"));
    args.addAll(List.of(where));
    return CliHarness.system(Map.of("HOME", tmp.toString()), false, args.toArray(String[]::new));
  }

  @Test
  void aModelTheEngineRefusesIsSaidInPlaceOfLaunchIt() throws IOException {
    lib();
    Path demo = DemoModel.write(tmp.resolve("demo"), 1).getFirst();
    Path out = tmp.resolve("demo.yaml");
    CliHarness.Run r = setup(demo, out);
    assertEquals(0, r.code(), r.err()); // the config is written: it is right for a Metal engine
    assertTrue(Files.isRegularFile(out));
    assertTrue(r.out().endsWith("wrote " + out + "\n"), r.out());
    assertTrue(r.err().startsWith("strata-setup: the launch will be refused: strata-ref"), r.err());
    assertTrue(r.err().contains("qwen3next"), r.err());
    assertTrue(r.err().endsWith(" shows the engine's answer)\n"), r.err());
    assertTrue(!r.err().contains("launch it: "), r.err());
    assertEquals(1, r.err().lines().count(), r.err());
  }

  @Test
  void printedTheRefusalIsOnStandardErrorAndTheConfigOnStandardOutput() throws IOException {
    Path demo = DemoModel.write(tmp.resolve("demo"), 1).getFirst();
    CliHarness.Run r = setup(demo, "--print");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("schema: strata.engine/v1\n"), r.out());
    assertTrue(r.err().startsWith("strata-setup: the launch will be refused: strata-ref"), r.err());
    assertTrue(r.err().endsWith(" (the config is printed all the same)\n"), r.err());
    assertEquals(1, r.err().lines().count(), r.err());
  }

  @Test
  void aModelTheEngineRunsGetsTheHint() {
    Path tiny = RepoRoot.resolve("templates/demo-model/tiny-qwen3-q4_k_m.gguf");
    Path out = tmp.resolve("tiny.yaml");
    CliHarness.Run r = setup(tiny, out);
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().lines().anyMatch(l -> l.startsWith("launch it: ")), r.err());
  }
}
