package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * archs.def's rendering (the build writes it for strata-ref: NativeSourcesTest checks the engine
 * was compiled from it).
 */
class ArchDefTest {
  @Test
  void oneLinePerArchitecture() {
    assertEquals(
        ArchTable.ARCHES.size(),
        ArchDef.render().lines().filter(l -> l.startsWith("STRATA_ARCH(")).count());
  }
}
