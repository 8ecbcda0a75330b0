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
  }
}
