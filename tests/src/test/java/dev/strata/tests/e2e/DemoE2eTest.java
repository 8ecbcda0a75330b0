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

/** {@code ./strata demo}: model, config and launch in one command, through the real engine. */
class DemoE2eTest {
  @TempDir Path dir;

  @Test
  void theDemoWritesItsFilesSaysWhereAndRunsTheEngine() throws Exception {
    E2e.refLibrary(); // built
    Map<String, String> env = Map.of("HOME", dir.toString());
    Cli.Result r = Cli.launch(env, "demo", "--dir", dir.resolve("demo").toString());
    assertEquals(0, r.code(), r.out() + "\n" + r.err());

    Path config = dir.resolve("demo/engine.yaml");
    EngineConfig c = ConfigCodec.read(config);
    assertEquals("cpu-reference", c.engine().backend());
    assertEquals(4, c.model().shards().size());
    assertTrue(c.engine().sha256() != null, "the demo pins strata-ref's sha256");
    for (String s : c.model().shards()) {
      assertTrue(Files.isRegularFile(Path.of(s)), s);
    }
    String o = r.out();
    assertTrue(o.contains("  model   " + dir.resolve("demo/model")), o);
    assertTrue(o.contains("  config  " + config), o);
    assertTrue(
        o.lines()
            .anyMatch(
                "kv: format=int8 cell_bytes=1056 layers=12 cells=32896 bytes=416858112"::equals),
        o);
    assertTrue(o.lines().anyMatch(l -> l.startsWith("decode: tokens=8 ")), o);
    // the arena's counters close the run: the demo's budget holds 4 tokens' experts, so it evicts
    assertTrue(o.lines().anyMatch(l -> l.matches("arena: mode=stream slots=192[01] .*")), o);
    assertTrue(
        o.lines().anyMatch(l -> l.startsWith("arena: ") && !l.contains(" evictions=0 ")),
        "the demo's arena evicts: " + o);
    assertTrue(o.lines().anyMatch(l -> l.startsWith("memory: peak_rss_bytes=")), o);
    assertTrue(o.contains("strata demo: done."), o);

    // A second run reuses the model and gives the same config, byte for byte.
    byte[] first = Files.readAllBytes(config);
    Cli.Result again = Cli.launch(env, "demo", "--dir", dir.resolve("demo").toString());
    assertEquals(0, again.code());
    assertTrue(again.out().contains("(reused: 4 GGUF shards"), again.out());
    assertTrue(java.util.Arrays.equals(first, Files.readAllBytes(config)));

    // A context the demo's workload (512 prompt tokens + 8 steps) cannot run in, or out of range:
    // refused before anything is written, so the working config stays as it is, with no .bak.
    java.util.List<String> before = listing(dir.resolve("demo"));
    for (String[] refusal :
        new String[][] {
          {
            "10",
            "strata-launch: --ctx 10 is too small for strata-ref's workload (--prompt-tokens 512 +"
                + " --n-predict 8 = 520 tokens in a pool of --ctx + 128 cells): use --ctx 392 or"
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
