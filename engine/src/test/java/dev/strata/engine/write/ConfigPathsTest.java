package dev.strata.engine.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.StrataException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigPathsTest {
  @Test
  void linuxUsesXdgConfigHome() {
    assertEquals(
        Path.of("/x/cfg/strata/engine.yaml"),
        ConfigPaths.defaultConfig(Map.of("HOME", "/home/u", "XDG_CONFIG_HOME", "/x/cfg"), "Linux"));
  }

  @Test
  void linuxFallsBackToDotConfigAndIgnoresARelativeXdg() {
    assertEquals(
        Path.of("/home/u/.config/strata/engine.yaml"),
        ConfigPaths.defaultConfig(Map.of("HOME", "/home/u"), "Linux"));
    assertEquals(
        Path.of("/home/u/.config/strata/engine.yaml"),
        ConfigPaths.defaultConfig(Map.of("HOME", "/home/u", "XDG_CONFIG_HOME", "rel"), "Linux"));
  }

  @Test
  void macUsesApplicationSupportEvenWithXdgSet() {
    assertEquals(
        Path.of("/Users/u/Library/Application Support/Strata/engine.yaml"),
        ConfigPaths.defaultConfig(Map.of("HOME", "/Users/u", "XDG_CONFIG_HOME", "/x"), "Mac OS X"));
  }

  @Test
  void strataConfigOverridesEverywhere() {
    Map<String, String> env = Map.of("HOME", "/h", "STRATA_CONFIG", "/etc/s.yaml");
    assertEquals(Path.of("/etc/s.yaml"), ConfigPaths.defaultConfig(env, "Linux"));
    assertEquals(Path.of("/etc/s.yaml"), ConfigPaths.defaultConfig(env, "Mac OS X"));
  }

  @Test
  void noHomeIsAUsageError() {
    StrataException e =
        assertThrows(StrataException.class, () -> ConfigPaths.defaultConfig(Map.of(), "Linux"));
    assertEquals(2, e.exitCode());
  }
}
