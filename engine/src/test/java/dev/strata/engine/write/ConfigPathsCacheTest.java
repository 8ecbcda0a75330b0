package dev.strata.engine.write;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The cache folder the demo and the Mac probe use: XDG's rule off the Mac (an absolute
 * XDG_CACHE_HOME, a relative or blank one ignored), ~/Library/Caches on a Mac whatever XDG says,
 * and nothing at all when HOME is needed and missing — never a folder relative to wherever the
 * command runs.
 */
class ConfigPathsCacheTest {
  static Optional<Path> cache(Map<String, String> env, String os) {
    return ConfigPaths.cacheFolder(env, os);
  }

  @Test
  void offTheMacAnAbsoluteXdgCacheHomeWinsElseHomesDotCache() {
    assertEquals(
        Optional.of(Path.of("/x/cache/strata")),
        cache(Map.of("HOME", "/h", "XDG_CACHE_HOME", "/x/cache"), "Linux"));
    assertEquals(
        Optional.of(Path.of("/x/cache/strata")),
        cache(Map.of("XDG_CACHE_HOME", "/x/cache"), "Linux"));
    for (String ignored : new String[] {"relative/cache", "", "  "}) {
      assertEquals(
          Optional.of(Path.of("/h/.cache/strata")),
          cache(Map.of("HOME", "/h", "XDG_CACHE_HOME", ignored), "Linux"),
          "XDG_CACHE_HOME='" + ignored + "'");
    }
    assertEquals(Optional.of(Path.of("/h/.cache/strata")), cache(Map.of("HOME", "/h"), "Linux"));
  }

  @Test
  void onAMacItIsLibraryCachesWhateverXdgSays() {
    assertEquals(
        Optional.of(Path.of("/Users/u/Library/Caches/Strata")),
        cache(Map.of("HOME", "/Users/u", "XDG_CACHE_HOME", "/x/cache"), "Mac OS X"));
    assertEquals(Optional.empty(), cache(Map.of("XDG_CACHE_HOME", "/x/cache"), "Mac OS X"));
  }

  @Test
  void noHomeMeansNoCacheFolder() {
    assertEquals(Optional.empty(), cache(Map.of(), "Linux"));
    assertEquals(Optional.empty(), cache(Map.of("HOME", " "), "Linux"));
    assertEquals(Optional.empty(), cache(Map.of("HOME", "", "XDG_CACHE_HOME", "rel"), "Linux"));
  }
}
