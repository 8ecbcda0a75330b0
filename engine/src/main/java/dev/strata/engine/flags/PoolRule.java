package dev.strata.engine.flags;

import dev.strata.engine.Backend;
import dev.strata.engine.kv.KvFormat;
import java.util.Locale;
import java.util.Map;

/**
 * strata-ref's pool rule, the one source on the Java side: its KV pools hold {@code --ctx} + 128
 * cells ({@link KvFormat#cells}) and its synthetic workload, {@code --prompt-tokens} + {@code
 * --n-predict} tokens, must fit in them; less is refused (strata-ref's startup.c, in the words of
 * {@link #WORDS}, which the build renders into its rules.def; docs/ENGINE-ABI.md). It applies where
 * the flag table accepts the workload flags (the cpu-reference backend). {@link EngineFlags#parse}
 * runs it, so the config reader and the config writer (docs/CONFIG.md) refuse the same configs;
 * strata-setup's {@code --ctx}, its wizard's rounding and {@code strata-launch demo} use {@link
 * #minContext} and {@link #contextProblem}.
 */
public final class PoolRule {
  private PoolRule() {}

  /**
   * The refusal's words: prompt tokens, predicted tokens, the pool's cells, the context, the extra
   * cells (every placeholder {@code %s}: strata-ref fills the same template, after {@code flags:
   * }).
   */
  public static final String WORDS =
      EngineFlags.PROMPT_TOKENS
          + " %s + "
          + EngineFlags.N_PREDICT
          + " %s exceed the pool's %s cells ("
          + EngineFlags.CTX
          + " %s + %s): lower them, or raise "
          + EngineFlags.CTX;

  /** Whether the backend runs a synthetic workload the rule bounds. */
  public static boolean applies(Backend backend) {
    return backend != null && EngineFlags.lookup(EngineFlags.PROMPT_TOKENS).acceptedBy(backend);
  }

  /**
   * The smallest context whose pool holds the workload: {@code promptTokens + nPredict − 128}, at
   * least 1.
   */
  public static long minContext(long promptTokens, long nPredict) {
    return Math.max(1, promptTokens + nPredict - KvFormat.EXTRA_CELLS);
  }

  /**
   * The workload of a set of flag values (flag → value as written; an absent flag is its table
   * default): {@code {--prompt-tokens, --n-predict}}.
   */
  public static long[] workload(Map<String, String> values) {
    return new long[] {
      value(values, EngineFlags.PROMPT_TOKENS), value(values, EngineFlags.N_PREDICT)
    };
  }

  private static long value(Map<String, String> values, String flag) {
    String v = values.get(flag);
    return Long.parseLong(v != null ? v : EngineFlags.lookup(flag).defaultValue());
  }

  /**
   * The reader's refusal of parsed args for the backend, or null when the pool holds the workload
   * (or the backend has none): {@code --prompt-tokens 512 + --n-predict 64 exceed the pool's 138
   * cells (--ctx 10 + 128): lower them, or raise --ctx} (strata-ref's own line after {@code flags:
   * }).
   */
  static String problem(EngineArgs a, Backend backend) {
    if (!applies(backend)) {
      return null;
    }
    long cells = KvFormat.cells(a.ctx());
    if ((long) a.promptTokens() + a.nPredict() <= cells) {
      return null;
    }
    return String.format(
        Locale.ROOT, WORDS, a.promptTokens(), a.nPredict(), cells, a.ctx(), KvFormat.EXTRA_CELLS);
  }

  /**
   * A context chosen for a workload (strata-setup's {@code --ctx}, {@code strata-launch demo
   * --ctx}), worded for whoever chose it: null when its pool holds the workload, else {@code --ctx
   * 10 is too small for strata-ref's workload (--prompt-tokens 512 + --n-predict 64 = 576 tokens in
   * a pool of --ctx + 128 cells): use --ctx 448 or more}.
   */
  public static String contextProblem(long context, long promptTokens, long nPredict) {
    return contextProblem(context, promptTokens, nPredict, EngineFlags.CTX);
  }

  /**
   * {@link #contextProblem(long, long, long)}, the context named as the user gave it: {@code --ctx}
   * on the command line, {@code ctx} in an answers file (a message names no flag the user did not
   * give).
   */
  public static String contextProblem(
      long context, long promptTokens, long nPredict, String given) {
    long min = minContext(promptTokens, nPredict);
    if (context >= min) {
      return null;
    }
    return given
        + " "
        + context
        + " is too small for strata-ref's workload ("
        + EngineFlags.PROMPT_TOKENS
        + " "
        + promptTokens
        + " + "
        + EngineFlags.N_PREDICT
        + " "
        + nPredict
        + " = "
        + (promptTokens + nPredict)
        + " tokens in a pool of "
        + given
        + " + "
        + KvFormat.EXTRA_CELLS
        + " cells): use "
        + given
        + " "
        + min
        + " or more";
  }
}
