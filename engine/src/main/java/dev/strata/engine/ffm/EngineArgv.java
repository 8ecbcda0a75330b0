package dev.strata.engine.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The argv the ABI's entry points take ({@code strata_engine_main}, {@code _check}, {@code
 * strata_session_open}): like {@code main}'s, {@code argv[0]} the library's file name (skipped by
 * the engine), then the config's arguments, as a NULL-terminated {@code char **}.
 */
final class EngineArgv {
  private EngineArgv() {}

  /**
   * {@code [library file name, args...]}.
   *
   * @throws IllegalArgumentException when an argument contains NUL
   */
  static List<String> of(Path library, List<String> args) {
    List<String> argv = new ArrayList<>(args.size() + 1);
    argv.add(library.getFileName().toString());
    for (String a : args) {
      if (Objects.requireNonNull(a, "argument").indexOf('\0') >= 0) {
        throw new IllegalArgumentException(
            "engine argument contains NUL: " + a.replace("\0", "\\0"));
      }
      argv.add(a);
    }
    return argv;
  }

  /** A NULL-terminated {@code char **} of {@code argv} in {@code a}. */
  static MemorySegment segment(Arena a, List<String> argv) {
    MemorySegment array = a.allocate(ValueLayout.ADDRESS, argv.size() + 1L);
    for (int i = 0; i < argv.size(); i++) {
      array.setAtIndex(ValueLayout.ADDRESS, i, a.allocateFrom(argv.get(i)));
    }
    array.setAtIndex(ValueLayout.ADDRESS, argv.size(), MemorySegment.NULL);
    return array;
  }
}
