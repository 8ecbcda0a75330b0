package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.testsupport.GoldenFiles;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** strata-ref's archs.def is the architecture table's rendering, byte for byte. */
class ArchDefTest {
  @Test
  void archsDefIsTheTablesRendering() throws IOException {
    GoldenFiles.repository().check("engine/native/src/archs.def", ArchDef.render());
  }

  @Test
  void oneLinePerArchitecture() {
    assertEquals(
        ArchTable.ARCHES.size(),
        ArchDef.render().lines().filter(l -> l.startsWith("STRATA_ARCH(")).count());
  }
}
