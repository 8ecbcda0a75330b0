// Generated from templates/engine/*.yaml by the build (PackagedTemplatesSource).
// Do not edit: change the YAML; the next build writes this file again.
package dev.strata.engine.gen;

import dev.strata.engine.Backend;
import java.util.List;
import java.util.Map;

/**
 * The packaged engine templates, {@code templates/engine/<backend>.yaml}, as values: {@link
 * Templates#load} returns them without reading a resource or parsing YAML (docs/PERFORMANCE.md
 * §2c). The YAML files are the source; the build writes this class from them ({@link
 * PackagedTemplatesSource}, read with the strict reader) and compiles it.
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
