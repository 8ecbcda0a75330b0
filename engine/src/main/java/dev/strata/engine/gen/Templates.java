package dev.strata.engine.gen;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Loads engine templates: {@code templates/engine/<backend>.yaml}, packaged on the class path as
 * {@code strata/templates/engine/<backend>.yaml}. Strict ({@link StrictYaml}): the keys are {@code
 * template} (must be {@value #SCHEMA}), {@code backend}, {@code args}, {@code env}.
 */
public final class Templates {
  public static final String SCHEMA = "strata.template/v1";
  static final String RESOURCE_ROOT = "strata/templates/engine/";
  private static final Set<String> KEYS =
      new LinkedHashSet<>(List.of("template", "backend", "args", "env"));

  private Templates() {}

  /** The packaged template of a backend. */
  public static Template load(Backend backend) {
    String res = RESOURCE_ROOT + backend.id() + ".yaml";
    try (InputStream in = Templates.class.getClassLoader().getResourceAsStream(res)) {
      if (in == null) {
        throw new StrataException(
            ExitCodes.USAGE,
            "no engine template for backend " + backend.id() + " (templates/engine/)");
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      Template t = parse(text, "templates/engine/" + backend.id() + ".yaml");
      if (t.backend() != backend) {
        throw new StrataException(
            ExitCodes.USAGE,
            t.name() + ": says backend " + t.backend().id() + ", not " + backend.id());
      }
      return t;
    } catch (IOException e) {
      throw new StrataException(ExitCodes.USAGE, "cannot read the packaged template " + res, e);
    }
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
