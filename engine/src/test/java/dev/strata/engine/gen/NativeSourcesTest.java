package dev.strata.engine.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * strata-ref's generated headers are build output: the engine under test was compiled from the Java
 * tables as they are now, no hand-kept or committed copy sits in its sources, and the writer leaves
 * an unchanged file alone (so make recompiles only what a changed table touches).
 */
class NativeSourcesTest {
  static final Path GEN = RepoRoot.resolve("engine/target/native/gen");
  static final Path SRC = RepoRoot.resolve("engine/native/src");

  @Test
  void theEngineWasCompiledFromTheTablesAsTheyAre() throws IOException {
    for (Map.Entry<String, String> e : NativeSources.render().entrySet()) {
      Path built = GEN.resolve(e.getKey());
      assertTrue(
          Files.exists(built), built + " missing: the build writes it (engine/native/Makefile)");
      assertEquals(e.getValue(), Files.readString(built), built + " is not the table's rendering");
    }
  }

  @Test
  void noCopyInTheSources() {
    for (String name : NativeSources.render().keySet()) {
      assertFalse(Files.exists(SRC.resolve(name)), SRC.resolve(name) + ": generated, not kept");
    }
  }

  @Test
  void anUnchangedFileIsNotRewritten(@TempDir Path dir) throws IOException {
    assertEquals(NativeSources.render().size(), NativeSources.write(dir));
    FileTime old = FileTime.fromMillis(1_000_000);
    Path flags = dir.resolve("flags.def");
    Files.setLastModifiedTime(flags, old);
    assertEquals(0, NativeSources.write(dir));
    assertEquals(old, Files.getLastModifiedTime(flags));
    Files.writeString(flags, "stale");
    assertEquals(1, NativeSources.write(dir));
    assertEquals(NativeSources.render().get("flags.def"), Files.readString(flags));
  }
}
