package dev.strata.engine.gen;

import dev.strata.engine.flags.FlagsDef;
import dev.strata.engine.model.ArchDef;
import dev.strata.engine.model.GgmlTypesDef;
import dev.strata.engine.plan.RulesDef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes the C sources strata-ref includes from the Java tables: {@code flags.def} ({@link
 * FlagsDef}), {@code archs.def} ({@link ArchDef}), {@code rules.def} ({@link RulesDef}) and {@code
 * ggml_types.def} ({@link GgmlTypesDef}). The engine's Makefile runs it on the compiled classes
 * before it compiles a C file, so the headers are build output (engine/target/native/gen/), never
 * committed and never stale. A file whose text is unchanged is not rewritten, so make recompiles
 * only what a changed table touches.
 *
 * <p>Usage: {@code java -cp engine/target/classes dev.strata.engine.gen.NativeSources DIR}; exit 2
 * with one line on a usage or write error.
 */
public final class NativeSources {
  private NativeSources() {}

  /** File name → text, in a fixed order. */
  public static Map<String, String> render() {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("flags.def", FlagsDef.render());
    files.put("archs.def", ArchDef.render());
    files.put("rules.def", RulesDef.render());
    files.put("ggml_types.def", GgmlTypesDef.render());
    return files;
  }

  /**
   * Writes every file of {@link #render} into {@code dir} (created when missing), leaving unchanged
   * ones untouched.
   *
   * @return how many files were written
   */
  public static int write(Path dir) throws IOException {
    Files.createDirectories(dir);
    int written = 0;
    for (Map.Entry<String, String> e : render().entrySet()) {
      if (GeneratedFiles.writeIfChanged(dir.resolve(e.getKey()), e.getValue())) {
        written++;
      }
    }
    return written;
  }

  static final String USAGE = "NativeSources DIR (the folder the engine's .def files go to)";

  public static void main(String[] args) {
    GeneratedFiles.main(USAGE, 1, args, a -> write(Path.of(a[0])));
  }
}
