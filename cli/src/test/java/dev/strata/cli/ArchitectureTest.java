package dev.strata.cli;

import dev.strata.testsupport.Architecture;
import org.junit.jupiter.api.Test;

/**
 * This module's dependency rules (docs/ARCHITECTURE.md): no package cycle, the module direction.
 */
class ArchitectureTest {
  @Test
  void packagesHaveNoCycleAndDependOnlyDownward() {
    Architecture.check("dev.strata.cli");
  }
}
