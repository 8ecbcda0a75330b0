package dev.strata.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.StrataException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoPathsTest {
  @Test
  void cacheFolderPerPlatform() {
    assertEquals(
        Path.of("/x/cache/strata/demo"),
        DemoPaths.cacheDir(Map.of("HOME", "/h", "XDG_CACHE_HOME", "/x/cache"), "Linux"));
    assertEquals(
        Path.of("/h/.cache/strata/demo"),
        DemoPaths.cacheDir(Map.of("HOME", "/h", "XDG_CACHE_HOME", "relative"), "Linux"));
    assertEquals(
        Path.of("/h/Library/Caches/Strata/demo"),
        DemoPaths.cacheDir(Map.of("HOME", "/h", "XDG_CACHE_HOME", "/x/cache"), "Mac OS X"));
    assertThrows(StrataException.class, () -> DemoPaths.cacheDir(Map.of(), "Linux"));
  }

  @Test
  void strataRefIsLookedForInTheBuildThenTheDistribution() {
    assertEquals(
        List.of(
            Path.of("/r/engine/target/native/libstrata_ref.so"),
            Path.of("/d/lib/libstrata_ref.so")),
        DemoPaths.refLibraryCandidates("/r", "/d", "Linux"));
    assertEquals(
        List.of(Path.of("/d/lib/libstrata_ref.dylib")),
        DemoPaths.refLibraryCandidates(null, "/d", "Mac OS X"));
  }
}
