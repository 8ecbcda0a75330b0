// Generated from templates/engine/*.yaml by PackagedTemplatesTest (engine tests).
// Do not edit: change the YAML, then run (templates/README.md)
//   mvn -pl engine -am verify -Dtest=PackagedTemplatesTest \
//     -Dsurefire.failIfNoSpecifiedTests=false -Dgolden.update=true
package dev.strata.engine.gen;

import dev.strata.engine.Backend;
import java.util.List;
import java.util.Map;

/**
 * The packaged engine templates, {@code templates/engine/<backend>.yaml}, as values: {@link
 * Templates#load} returns them without reading a resource or parsing YAML (docs/PERFORMANCE.md
 * §2c). The YAML files are the source; {@code PackagedTemplatesTest} reads each with the strict
 * reader and keeps this class equal to them.
 */
final class PackagedTemplates {
  private PackagedTemplates() {}

  /** The packaged template of a backend; null when templates/engine/ has none. */
  static Template of(Backend backend) {
    return switch (backend) {
      case METAL -> metal();
      case CPU_REFERENCE -> cpuReference();
      default -> null;
    };
  }

  private static Template metal() {
    return new Template(
        "templates/engine/metal.yaml",
        Backend.METAL,
        List.of("--spec", "2", "--suffix-draft", "0"),
        Map.of());
  }

  private static Template cpuReference() {
    return new Template(
        "templates/engine/cpu-reference.yaml",
        Backend.CPU_REFERENCE,
        List.of(
            "--spec", "2", "--suffix-draft", "0", "--prompt-tokens", "512", "--n-predict", "64"),
        Map.of());
  }
}
