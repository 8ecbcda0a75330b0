package dev.strata.engine.plan;

import java.util.Locale;

/**
 * The words of a refused plan (docs/PLAN.md, "Refusals"), one copy for both engines: {@link
 * Planner} and {@link StreamSizing} fill them with {@link #fill}, and strata-ref's startup.c fills
 * the same templates with {@code snprintf} from the generated {@code rules.def} ({@link RulesDef}).
 * Every placeholder is {@code %s} (a string, the figure already formatted), the one conversion
 * Java's {@link String#format} and C's {@code printf} read alike; {@link RulesDef} refuses any
 * other {@code %}.
 */
public final class PlanWords {
  private PlanWords() {}

  /**
   * Stream mode cannot hold one token's experts: token slots, their GiB, the dense text, KV,
   * stand-by, page-cache headroom, the scratch term, the budget, the shortfall (rounded up), the
   * advice.
   */
  public static final String STREAM_REFUSAL =
      "stream: the expert arena cannot hold one token's experts (%s slots, %s GiB) after dense %s"
          + " + KV %s + stand-by %s + page-cache headroom %s%s GiB in the %s GiB the engine may"
          + " use; short by %s GiB; %s";

  /**
   * Resident experts do not fit: the dense text, KV, every expert, the scratch term, the sum, the
   * budget, usable, the margin, the shortfall (rounded up), the advice.
   */
  public static final String RESIDENT_REFUSAL =
      "resident: dense %s + KV %s + every expert %s%s = %s GiB, over the %s GiB the engine may use"
          + " (%s GiB usable - %s GiB margin) by %s GiB; %s";

  /** A term of the dense text: the recurrent state's GiB. */
  public static final String RECURRENT_STATE_TERM = " + recurrent state %s";

  /** A term of the dense text: the MTP drafter's GiB. */
  public static final String DRAFTER_TERM = " + MTP drafter %s";

  /** A term of the sum where the plan has strata-ref's scratch: its GiB. */
  public static final String SCRATCH_TERM = " + scratch %s";

  /** The advice's lead in a stream plan. */
  public static final String LEAD_STREAM = "use";

  /** The advice's lead in a resident plan. */
  public static final String LEAD_RESIDENT = "use --experts stream with";

  /** The advice of a resident plan whose stream plan fits. */
  public static final String USE_STREAM = "use --experts stream";

  /**
   * A smaller context fits: the lead, the context, then {@link #OR_Q4} or nothing, then {@link
   * #OR_FLAG} or nothing.
   */
  public static final String SMALLER_CONTEXT = "%s a smaller context (--ctx %s fits)%s%s";

  /** Added to {@link #SMALLER_CONTEXT} where q4_0 pools would hold the model. */
  public static final String OR_Q4 = " or --kv q4_0";

  /** Added to {@link #SMALLER_CONTEXT} when --mem-budget-mb is the bound: {@link #RAISE_BUDGET}. */
  public static final String OR_FLAG = ", or %s";

  /** --mem-budget-mb lowered the budget: the plan's own budget in GiB. */
  public static final String RAISE_BUDGET =
      "raise or remove --mem-budget-mb (without it the engine may use %s GiB)";

  /** Not even the smallest context fits within --mem-budget-mb: its MiB, {@link #RAISE_BUDGET}. */
  public static final String NO_FIT_WITHIN_BUDGET =
      "the model does not fit even streamed at the smallest context within --mem-budget-mb %s; %s";

  /** Not even the smallest context fits: what to do about the machine. */
  public static final String NO_FIT =
      "the model does not fit even streamed at the smallest context; %s";

  /**
   * {@link #NO_FIT}'s remedy off the Mac (the only one strata-ref words: it plans whole memory).
   */
  public static final String MORE_MEMORY = "use a machine with more memory";

  /**
   * A refused plan of {@code --parallel N > 1} goes on: {@link #PARALLEL_SEPARATOR}, then N, N, N,
   * the KV pools of one sequence and of all ({@link dev.strata.engine.text.ByteSize#iec}), then
   * {@link #PARALLEL_FITS} with the largest N that fits or {@link #PARALLEL_NONE}.
   */
  public static final String PARALLEL_WEIGH =
      "--parallel %s holds %s sequences' KV pools, %s \u00d7 %s = %s";

  /** Between a refusal and {@link #PARALLEL_WEIGH}. */
  public static final String PARALLEL_SEPARATOR = "; ";

  /** After {@link #PARALLEL_WEIGH}: the largest --parallel below N that fits. */
  public static final String PARALLEL_FITS = ": --parallel %s fits";

  /** After {@link #PARALLEL_WEIGH}: not even one sequence fits. */
  public static final String PARALLEL_NONE = ": even --parallel 1 does not fit";

  /**
   * The note of {@code --spec N > 0} on a model without MTP blocks: N, the architecture (strata-ref
   * logs it as a warning in the same words).
   */
  public static final String NO_DRAFTER =
      "spec: --spec %s asks for MTP drafting but the model has no MTP block"
          + " (%s.nextn_predict_layers); the engine runs without drafting";

  /** {@code template} with its {@code %s} placeholders filled in order (fixed locale). */
  public static String fill(String template, Object... args) {
    return String.format(Locale.ROOT, template, args);
  }
}
