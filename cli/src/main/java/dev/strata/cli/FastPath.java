package dev.strata.cli;

import dev.strata.engine.StrataException;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * What both commands' {@code main} does between the argument list and the exit code: the path
 * options' values expanded ({@link PathArgs}), then the start-up fast path when the list is simple
 * (its request run straight by the command's flow, no picocli class loaded), else picocli. A
 * refusal on the fast path is reported as picocli's execution handler reports it ({@link
 * Io#report}), so the two ways end alike.
 */
public final class FastPath {
  private FastPath() {}

  /**
   * @param command the command's name in messages ({@link CommandNames})
   * @param given the command line, no program name
   * @param paths the command's path options ({@link PathArgs#paths})
   * @param simple the request a simple list makes, or null (the command's {@code simple})
   * @param picocli runs a list that is not simple through picocli, to its exit code
   * @param flow runs a request, to its exit code
   * @return the exit code (docs/RELIABILITY.md)
   */
  public static <R> int execute(
      Io io,
      String command,
      String[] given,
      Map<String, String> paths,
      Function<String[], R> simple,
      ToIntFunction<String[]> picocli,
      ToIntFunction<R> flow) {
    try {
      String[] args = PathArgs.expand(given, paths, io.env().get("HOME"));
      R request = simple.apply(args);
      return request == null ? picocli.applyAsInt(args) : flow.applyAsInt(request);
    } catch (StrataException e) {
      return io.report(command, e);
    }
  }
}
