package dev.strata.engine.ffm;

import dev.strata.engine.plan.PlanItems;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The engine's own answer to a launch it was asked about: {@code strata_engine_check} called with
 * exactly the argv and environment the launch passes to {@code strata_engine_main}
 * (docs/ENGINE-ABI.md). Asked by the launcher's preflight ({@code --plan}, {@code --dry-run}, the
 * launch) and by {@code strata-setup} after it wrote a config, so both say the same.
 *
 * @param engine {@code strata_engine_name()}
 * @param rc what the check returned: 0 = it would start
 * @param firstError the first line the engine logged at error level, or null
 * @param planLines the engine's accounting lines ({@code plan: item=…}, {@link PlanItems})
 */
public record CheckAnswer(String engine, int rc, String firstError, List<String> planLines) {

  /**
   * Asks {@code lib} (its environment overlaid with {@code env} during the call only, as a launch
   * sets it).
   *
   * @throws UnsupportedOperationException when the library has no check ({@link
   *     NativeEngine#hasCheck()})
   */
  public static CheckAnswer ask(NativeEngine lib, List<String> argv, Map<String, String> env) {
    List<String> planLines = new ArrayList<>();
    String[] firstError = new String[1];
    LogSink sink =
        (level, line) -> {
          synchronized (planLines) {
            if (level == LogLevel.ERROR && firstError[0] == null) {
              firstError[0] = line;
            }
            if (PlanItems.name(line) != null) {
              planLines.add(line);
            }
          }
        };
    int rc;
    Runnable restore = lib.overlayEnv(env);
    try {
      rc = lib.check(argv, sink);
    } finally {
      restore.run();
    }
    synchronized (planLines) {
      return new CheckAnswer(lib.name(), rc, firstError[0], List.copyOf(planLines));
    }
  }

  /** Whether the engine would start this launch. */
  public boolean wouldStart() {
    return rc == 0;
  }

  /** The refusal in one line: "NAME refuses this launch (strata_engine_check returned N): why". */
  public String why() {
    return engine
        + " refuses this launch ("
        + NativeEngine.CHECK_SYMBOL
        + " returned "
        + rc
        + "): "
        + (firstError != null ? firstError : "no error line");
  }
}
