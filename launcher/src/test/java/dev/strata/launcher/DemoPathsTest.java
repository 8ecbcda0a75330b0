package dev.strata.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.StrataException;
import dev.strata.engine.ffm.StrataRefLibrary;
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
  void strataRefIsLookedForInTheDistributionThenTheBuildAsSetupDoes() {
    assertEquals(
        List.of(
            Path.of("/d/lib/native/libstrata_ref.so"),
            Path.of("/r/engine/target/native/libstrata_ref.so")),
        StrataRefLibrary.candidates(Path.of("/d"), Path.of("/r"), "Linux"));
    StrataException e =
        assertThrows(
            StrataException.class,
            () -> DemoPaths.findRefLibrary(null, Path.of("/nowhere"), "Mac OS X"));
    assertEquals(
        "strata-ref not found at [/nowhere/lib/native/libstrata_ref.dylib]: build it with"
            + " ./strata build",
        e.getMessage());
  }

  @Test
  void theDemoModelIsTheCheckoutsThenTheDistributions() throws java.io.IOException {
    Path root = dev.strata.testsupport.RepoRoot.path();
    Path shipped = root.resolve(DemoPaths.DEMO_MODEL).toAbsolutePath().normalize();
    assertEquals(shipped, DemoPaths.findDemoModel(root, null));
    assertEquals(shipped, DemoPaths.findDemoModel(null, root), "a distribution has it too");
    // the one exception to "commit no copy": the shared data's file, byte for byte
    assertEquals(17_558_912L, java.nio.file.Files.size(shipped));
    StrataException e =
        assertThrows(
            StrataException.class,
            () -> DemoPaths.findDemoModel(Path.of("/nonexistent-root"), null));
    assertEquals(3, e.exitCode());
    assertEquals(
        "the demo model is not there: [/nonexistent-root/templates/demo-model/tiny-qwen3-q4_k_m.gguf]:"
            + " it comes with the checkout and the distribution (templates/demo-model/)",
        e.getMessage());
  }
}
