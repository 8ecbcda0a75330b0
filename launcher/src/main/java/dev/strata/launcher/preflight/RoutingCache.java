package dev.strata.launcher.preflight;

import dev.strata.engine.IoReason;
import dev.strata.engine.Sha256;
import dev.strata.engine.plan.RoutingProfile;
import dev.strata.engine.write.ConfigPaths;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where a plan finds a model's recorded routing (docs/PLAN.md "Expected reads"): {@code
 * <cache>/routing/<bytes>-<sha256>.trace} in the user's cache folder ({@link
 * ConfigPaths#cacheFolder}), named by the model's first shard's size and SHA-256, holding a
 * strata-ref router trace ({@code STRATA_ARENA_TRACE}). The size comes first so that the shard is
 * hashed only when a trace of its size is there (hashing a large model takes a while). A trace only
 * shapes the plan's expectation, never what runs, so it is read without the ownership rule.
 */
final class RoutingCache {
  private RoutingCache() {}

  /** The folder under the cache folder. */
  static final String FOLDER = "routing";

  /**
   * What the lookup found.
   *
   * @param profile the trace read, or null
   * @param path the trace's path, or null when none is recorded
   * @param problem why a trace that is there is not used (unreadable, malformed), or null
   */
  record Found(RoutingProfile profile, Path path, String problem) {
    static final Found NONE = new Found(null, null, null);
  }

  /** The trace recorded for the model whose first shard is {@code shard}, bytes long. */
  static Found find(Map<String, String> env, String osName, Path shard, long bytes) {
    Path folder = ConfigPaths.cacheFolder(env, osName).map(p -> p.resolve(FOLDER)).orElse(null);
    if (folder == null || !Files.isDirectory(folder)) {
      return Found.NONE;
    }
    String prefix = bytes + "-";
    try (var listed = Files.list(folder)) {
      if (listed.noneMatch(p -> p.getFileName().toString().startsWith(prefix))) {
        return Found.NONE;
      }
    } catch (IOException e) {
      return Found.NONE;
    }
    Path trace;
    try (InputStream in = Files.newInputStream(shard)) {
      trace = folder.resolve(prefix + Sha256.hex(in) + ".trace");
    } catch (IOException e) {
      return new Found(null, null, shard + ": cannot hash the model (" + IoReason.of(e) + ")");
    }
    if (!Files.isRegularFile(trace)) {
      return Found.NONE;
    }
    try {
      return new Found(RoutingProfile.read(trace), trace, null);
    } catch (IllegalArgumentException e) {
      return new Found(null, trace, e.getMessage());
    }
  }
}
