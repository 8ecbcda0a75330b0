package dev.strata.setup.gen;

import dev.strata.engine.cli.TableValues;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.gen.StrictYaml;
import dev.strata.engine.kv.Backend;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code --answers FILE}: the wizard's answers as YAML, for scripts. Keys are the flag names
 * without dashes; unknown and duplicate keys are refused with {@code file:line}. Relative paths are
 * taken from the file's folder, so an answers file can sit beside its model.
 *
 * <pre>
 * model: models/m-00001-of-00004.gguf
 * ctx: 32768
 * experts: stream
 * kv: q4_0            # optional: no --kv unless asked
 * engine-lib: /opt/strata/lib/libstrata.dylib
 * backend: metal      # optional
 * host-file: m4-pro-48  # optional: a host JSON or a profile name
 * </pre>
 */
public final class AnswersFile {
  public static final Set<String> KEYS =
      new LinkedHashSet<>(
          List.of("model", "ctx", "experts", "kv", "engine-lib", "backend", "host-file"));

  private AnswersFile() {}

  public static Given read(Path file) {
    StrictYaml y = StrictYaml.read(file, KEYS);
    Path base = file.toAbsolutePath().getParent();
    Long ctx = y.number("ctx");
    if (ctx != null) {
      check(y, "ctx", EngineFlags.CTX, Long.toString(ctx));
    }
    String e = y.string("experts");
    ExpertsMode experts =
        e == null ? null : ExpertsMode.fromId(check(y, "experts", EngineFlags.EXPERTS, e));
    String k = y.string("kv");
    KvFormat kv = k == null ? null : KvFormat.fromName(check(y, "kv", EngineFlags.KV, k));
    String b = y.string("backend");
    Backend backend = b == null ? null : Backend.fromId(b);
    if (b != null && backend == null) {
      throw StrictYaml.error(
          y.source(),
          y.lineOf("backend"),
          "backend: must be metal, cpu-reference or pc, got '" + b + "'");
    }
    String host = y.string("host-file");
    if (host != null && (host.contains("/") || host.endsWith(".json"))) {
      host = path(base, host).toString();
    }
    return new Given(
        path(base, y.string("model")),
        ctx,
        experts,
        kv,
        path(base, y.string("engine-lib")),
        backend,
        host);
  }

  /** {@code value} when the engine flag table allows it for {@code flag}, else file:line: why. */
  private static String check(StrictYaml y, String key, String flag, String value) {
    String problem = TableValues.problem(flag, value);
    if (problem != null) {
      throw StrictYaml.error(y.source(), y.lineOf(key), key + ": " + problem);
    }
    return value;
  }

  private static Path path(Path base, String s) {
    if (s == null) {
      return null;
    }
    return base.resolve(s).normalize();
  }
}
