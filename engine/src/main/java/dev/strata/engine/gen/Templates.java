package dev.strata.engine.gen;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Engine templates. The packaged ones have one source, {@code templates/engine/<backend>.yaml}; the
 * build does not ship the YAML on the class path but compiles it into {@link PackagedTemplates}
 * (written by the build, {@link PackagedTemplatesSource}, and committed), which {@link #load}
 * returns, so {@code strata-setup} neither opens its jar nor runs a YAML parser for them
 * (docs/PERFORMANCE.md §2). {@code PackagedTemplatesTest} (engine tests) holds the class equal to
 * every YAML file as {@link #parse} reads it (templates/README.md).
 *
 * <p>Template files are read strictly ({@link StrictYaml}): the keys are {@code template} (must be
 * {@value #SCHEMA}), {@code backend}, {@code args}, {@code env}.
 */
public final class Templates {
  public static final String SCHEMA = "strata.template/v1";
  private static final Set<String> KEYS =
      new LinkedHashSet<>(List.of("template", "backend", "args", "env"));

  private Templates() {}

  /**
   * The packaged template of a backend: {@code templates/engine/<backend>.yaml} as compiled into
   * {@link PackagedTemplates} (no resource read, no YAML parse at run time).
   *
   * @throws StrataException exit 2 for a backend without a template ({@code pc})
   */
  public static Template load(Backend backend) {
    Template t = PackagedTemplates.of(backend);
    if (t == null) {
      throw new StrataException(
          ExitCodes.USAGE,
          "no engine template for backend " + backend.id() + " (templates/engine/)");
    }
    return t;
  }

  /** A template file on disk. */
  public static Template read(Path file) {
    return from(StrictYaml.read(file, KEYS));
  }

  /** Template text; {@code source} names it in errors. */
  public static Template parse(String text, String source) {
    return from(StrictYaml.parse(text, source, KEYS));
  }

  private static Template from(StrictYaml y) {
    String schema = y.string("template");
    if (!SCHEMA.equals(schema)) {
      throw StrictYaml.error(
          y.source(),
          y.lineOf("template"),
          "template: must be " + SCHEMA + (schema == null ? "" : ", got '" + schema + "'"));
    }
    String b = y.string("backend");
    Backend backend = Backend.fromId(b);
    if (backend == null) {
      throw StrictYaml.error(
          y.source(),
          y.lineOf("backend"),
          "backend: must be metal, cpu-reference or pc" + (b == null ? "" : ", got '" + b + "'"));
    }
    try {
      return new Template(y.source(), backend, y.strings("args"), y.stringMap("env"));
    } catch (IllegalArgumentException e) {
      String m = e.getMessage();
      String own = y.source() + ": ";
      throw StrictYaml.error(
          y.source(), y.lineOf("args"), m.startsWith(own) ? m.substring(own.length()) : m);
    }
  }
}
