package dev.strata.setup.gen;

import dev.strata.cli.ContextSize;
import dev.strata.engine.Backend;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.FlagSpec;
import dev.strata.engine.flags.ValueKind;
import dev.strata.engine.gen.StrictYaml;
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
    return read(file, null);
  }

  /**
   * @param home the user's home folder, for paths written {@code ~/…} (null: {@code ~} is not
   *     expanded)
   */
  public static Given read(Path file, Path home) {
    StrictYaml y = StrictYaml.read(file, KEYS);
    Path base = file.toAbsolutePath().getParent();
    // ctx: 8192 and ctx: "8192" alike (and 32k), by the --ctx rule
    String c = y.string("ctx");
    Long ctx = null;
    if (c != null) {
      String problem = ContextSize.problem(c);
      if (problem != null) {
        throw StrictYaml.error(y.source(), y.lineOf("ctx"), "ctx: " + problem);
      }
      ctx = ContextSize.parse(c);
    }
    // a key naming an engine flag whose row is a list of words (experts, kv) is checked by that
    // row, in the table's words; ctx is a size by the --ctx rule above, model a path from here
    for (String key : KEYS) {
      FlagSpec row = EngineFlags.lookup("--" + key);
      if (row == null || !(row.kind() instanceof ValueKind.Choice)) {
        continue;
      }
      String value = y.string(key);
      String problem = value == null ? null : row.kind().problem(value);
      if (problem != null) {
        throw StrictYaml.error(y.source(), y.lineOf(key), key + ": " + problem);
      }
    }
    String e = y.string("experts");
    ExpertsMode experts = e == null ? null : ExpertsMode.fromId(e);
    String k = y.string("kv");
    KvFormat kv = k == null ? null : KvFormat.fromName(k);
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
      host = path(base, home, host).toString();
    }
    return new Given(
        path(base, home, y.string("model")),
        ctx,
        experts,
        kv,
        path(base, home, y.string("engine-lib")),
        backend,
        host);
  }

  /**
   * {@code ~} and {@code ~/…} from the home folder; other relative paths from the file's folder.
   */
  private static Path path(Path base, Path home, String s) {
    if (s == null) {
      return null;
    }
    if (home != null && (s.equals("~") || s.startsWith("~/"))) {
      return s.equals("~") ? home : home.resolve(s.substring(2)).normalize();
    }
    return base.resolve(s).normalize();
  }
}
