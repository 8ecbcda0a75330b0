package dev.strata.launcher.preflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Sha256;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The routing trace a plan finds by the model's size and SHA-256 (docs/PLAN.md). */
class RoutingCacheTest {
  private static final String TRACE =
      "# strata-ref router trace 1: experts=4 used=1 moe_layers=1 slots=0 policy=lru mode=stream\n"
          + "l 0 2 0 1\nl 0 1 2\n";

  @TempDir Path dir;

  @Test
  void theTraceNamedByTheShardsSizeAndHashIsFoundAndABadOneIsSaid() throws Exception {
    Path shard = Files.writeString(dir.resolve("m.gguf"), "not really a model");
    long size = Files.size(shard);
    Map<String, String> env = Map.of("XDG_CACHE_HOME", dir.resolve("cache").toString());
    assertEquals(RoutingCache.Found.NONE, RoutingCache.find(env, "Linux", shard, size));
    Path folder = Files.createDirectories(dir.resolve("cache/strata/routing"));
    Files.writeString(folder.resolve(size + 1 + "-other.trace"), TRACE);
    assertEquals(RoutingCache.Found.NONE, RoutingCache.find(env, "Linux", shard, size));
    String sha = Sha256.hex(Files.readAllBytes(shard));
    Path trace = Files.writeString(folder.resolve(size + "-" + sha + ".trace"), TRACE);
    RoutingCache.Found f = RoutingCache.find(env, "Linux", shard, size);
    assertEquals(trace, f.path());
    assertNotNull(f.profile());
    assertEquals(1, f.profile().decodeTokens());
    Files.write(trace, "garbage\n".getBytes(StandardCharsets.UTF_8));
    RoutingCache.Found bad = RoutingCache.find(env, "Linux", shard, size);
    assertNull(bad.profile());
    assertTrue(
        bad.problem().startsWith(trace + ":1: not a strata-ref router trace"), bad.problem());
  }
}
