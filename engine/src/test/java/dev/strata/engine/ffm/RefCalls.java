package dev.strata.engine.ffm;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** One call of strata-ref on a model, its lines collected and its exit code as a last line. */
final class RefCalls {
  private RefCalls() {}

  /**
   * {@code strata_engine_main} (or {@code strata_engine_check} when {@code check}) with {@code
   * --model model args...}; the lines end with {@code rc=N}.
   */
  static NativeEngineTest.Lines call(
      NativeEngine engine, boolean check, Path model, String... args) {
    NativeEngineTest.Lines l = new NativeEngineTest.Lines();
    List<String> argv = new ArrayList<>(List.of("--model", model.toString()));
    argv.addAll(List.of(args));
    int rc = check ? engine.check(argv, l) : engine.run(argv, l);
    l.line(LogLevel.INFO, "rc=" + rc);
    return l;
  }
}
