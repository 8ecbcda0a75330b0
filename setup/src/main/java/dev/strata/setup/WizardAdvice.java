package dev.strata.setup;

import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.ModelGeometry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * What would make a draft that does not fit, fit — worded as answers in the wizard's summary, not
 * as flags (the plan's own refusal ends in flag advice such as {@code use --experts stream}, right
 * for the command line, wrong at a question). Each remedy is one answer changed, tried against the
 * real plan: experts stream, KV q4_0, or the largest context that fits with the other answers kept.
 *
 * @param figures the plan's refusal without its flag advice (what does not fit, by how much)
 * @param remedies one line per answer that, changed alone, makes it fit, in summary order
 * @param first the summary step to offer as the default (a remedy that keeps the context when there
 *     is one); null when none helps
 * @param context the largest context that fits with the other answers, 0 when none does
 * @param stream whether experts stream makes it fit
 * @param q4 whether KV q4_0 makes it fit
 */
record WizardAdvice(
    String figures,
    List<String> remedies,
    WizardDraft.Step first,
    long context,
    boolean stream,
    boolean q4) {

  /** Where the plan's refusal turns from figures to advice (Planner, StreamSizing.advice). */
  private static final String[] ADVICE_STARTS = {"; use ", "; the model does not fit", "; raise "};

  /**
   * The advice for {@code d}, whose plan refused with {@code refusal}.
   *
   * @param fits whether a draft's plan fits
   * @param minContext the smallest context the template's workload takes
   */
  static WizardAdvice of(
      WizardDraft d, String refusal, Predicate<WizardDraft> fits, long minContext) {
    List<String> remedies = new ArrayList<>();
    WizardDraft.Step first = null;
    boolean stream = false;
    boolean q4 = false;
    ModelGeometry g = d.model.geometry();
    long best = largestContextThatFits(d, fits, minContext);
    if (best > 0) {
      remedies.add(
          String.format(Locale.ROOT, "2) context: %,d tokens or fewer (now %,d)", best, d.context));
    }
    if (d.experts == ExpertsMode.RESIDENT) {
      WizardDraft t = d.copy();
      t.experts = ExpertsMode.STREAM;
      stream = fits.test(t);
      if (stream) {
        remedies.add("3) experts: stream (the SSD holds the experts, an arena the hot ones)");
        first = WizardDraft.Step.EXPERTS; // it keeps the context the user asked for
      }
    }
    if (d.kv != KvFormat.Q4_0 && g.headDim() == 256) {
      WizardDraft t = d.copy();
      t.kv = KvFormat.Q4_0;
      t.kvAnswered = true;
      q4 = fits.test(t);
      if (q4) {
        remedies.add("4) kv: q4_0 (about half the KV cache)");
        first = first == null ? WizardDraft.Step.KV : first;
      }
    }
    if (first == null && best > 0) {
      first = WizardDraft.Step.CONTEXT;
    }
    return new WizardAdvice(figures(refusal), List.copyOf(remedies), first, best, stream, q4);
  }

  /**
   * The refusal's figures, without its advice when the advice names flags; advice in plain words (a
   * machine with more memory) is kept.
   */
  static String figures(String refusal) {
    for (String start : ADVICE_STARTS) {
      int at = refusal.indexOf(start);
      if (at >= 0) {
        String advice = refusal.substring(at + 2);
        return advice.contains("--") ? refusal.substring(0, at) : refusal;
      }
    }
    return refusal;
  }

  /**
   * The largest context below the draft's that fits with every other answer kept, rounded down to
   * whole KiB of tokens (as people type them) and capped at the model's trained context; 0 when
   * even the smallest does not fit. A binary search: the plan grows with the context.
   */
  static long largestContextThatFits(WizardDraft d, Predicate<WizardDraft> fits, long minContext) {
    WizardDraft t = d.copy();
    long lo = Math.max(1, minContext);
    long hi = d.context - 1;
    if (hi < lo) {
      return 0;
    }
    t.context = lo;
    if (!fits.test(t)) {
      return 0;
    }
    while (lo < hi) {
      long mid = lo + (hi - lo + 1) / 2;
      t.context = mid;
      if (fits.test(t)) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    long best = lo >= 1024 ? lo / 1024 * 1024 : lo;
    best = Math.max(best, Math.max(1, minContext));
    long trained = d.model.geometry().trainedContext();
    return trained > 0 ? Math.min(best, Math.max(trained, Math.max(1, minContext))) : best;
  }
}
