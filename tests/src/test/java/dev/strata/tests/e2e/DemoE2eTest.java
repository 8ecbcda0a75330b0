package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.tests.dist.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./strata demo}: a config for the demo model (the real tiny-qwen3 Q4_K_M the repository
 * carries) and a launch that generates text, through the real engine.
 */
class DemoE2eTest {
  @TempDir Path dir;

  @Test
  void theDemoWritesItsConfigSaysWhereAndGeneratesText() throws Exception {
    E2e.refLibrary(); // built
    Map<String, String> env = Map.of("HOME", dir.toString());
    Cli.Result r = Cli.launch(env, "demo", "--dir", dir.resolve("demo").toString());
    assertEquals(0, r.code(), r.out() + "\n" + r.err());

    Path config = dir.resolve("demo/engine.yaml");
    EngineConfig c = ConfigCodec.read(config);
    assertEquals("cpu-reference", c.engine().backend());
    Path model = E2e.root().resolve("templates/demo-model/tiny-qwen3-q4_k_m.gguf");
    assertEquals(java.util.List.of(model.toString()), c.model().shards());
    assertTrue(c.engine().sha256() != null, "the demo pins strata-ref's sha256");
    assertTrue(c.args().containsAll(java.util.List.of("--ctx", "1024")), c.args().toString());
    String o = r.out();
    assertTrue(o.contains("  model   " + model), o);
    assertTrue(o.contains("  config  " + config), o);
    // the text: the prompt, then 48 greedy tokens of the model's own
    String text = o.substring(o.indexOf("\n\n") + 2, o.indexOf("\n\nstrata demo: "));
    assertTrue(text.startsWith("The Linux kernel"), o);
    assertTrue(text.length() > "The Linux kernel".length() + 20, "text was generated: " + o);
    assertTrue(o.lines().anyMatch(l -> l.matches("strata demo: 48 tokens at [0-9.]+ tok/s .*")), o);
    assertTrue(
        o.lines()
            .anyMatch(l -> l.matches("  memory  plan [0-9.]+ MB \\(.*\\); peak RSS [0-9.]+ MB .*")),
        o);
    assertTrue(o.contains("strata demo: done."), o);
    // the plan and the engine's lines went to standard error; the demo warns about nothing
    assertTrue(r.err().contains("memory plan: cpu-reference"), r.err());
    assertTrue(r.err().lines().anyMatch(l -> l.startsWith("alloc: item=kv ")), r.err());
    assertTrue(
        r.err().lines().noneMatch(l -> l.contains("warning") || l.startsWith("warn: ")), r.err());

    // A second run gives the same config, byte for byte, and the same text (greedy).
    byte[] first = Files.readAllBytes(config);
    Cli.Result again = Cli.launch(env, "demo", "--dir", dir.resolve("demo").toString());
    assertEquals(0, again.code(), again.err());
    assertTrue(java.util.Arrays.equals(first, Files.readAllBytes(config)));
    assertTrue(again.out().contains(text), again.out());

    // A context strata-ref's pool rule refuses (the template's 512 prompt tokens + 64 steps), or
    // out of range:
    // refused before anything is written, so the working config stays as it is, with no .bak.
    java.util.List<String> before = listing(dir.resolve("demo"));
    for (String[] refusal :
        new String[][] {
          {
            "10",
            "strata-launch: --ctx 10 is too small for strata-ref's workload (--prompt-tokens 512 +"
                + " --n-predict 64 = 576 tokens in a pool of --ctx + 128 cells): use --ctx 448 or"
                + " more"
          },
          {"-5", "strata-launch: --ctx: -5 is out of range (a whole number in 1..1048576)"},
          {"0", "strata-launch: --ctx: 0 is out of range (a whole number in 1..1048576)"}
        }) {
      Cli.Result bad =
          Cli.launch(env, "demo", "--dir", dir.resolve("demo").toString(), "--ctx", refusal[0]);
      assertEquals(2, bad.code(), bad.err());
      assertEquals(refusal[1], bad.err().strip());
      assertEquals("", bad.out());
      assertTrue(java.util.Arrays.equals(first, Files.readAllBytes(config)), "config untouched");
      assertEquals(before, listing(dir.resolve("demo")), "nothing written, no .bak");
    }
  }

  private static java.util.List<String> listing(Path folder) throws java.io.IOException {
    try (java.util.stream.Stream<Path> s = Files.list(folder)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
