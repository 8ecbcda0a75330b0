package dev.strata.engine.plan;

import dev.strata.engine.model.ModelGeometry;

/**
 * strata-ref's own limits on a model's attention heads, beyond what its KV formats hold: its
 * attention keeps a query group's scores and one head vector on the stack, sized for at most
 * {@value #MAX_KV_HEADS} KV heads of at most {@value #MAX_HEAD_DIM} values (engine/native/src/
 * attn.c). A cpu-reference plan refuses a model past them ({@link KvPlanRules#refusal}) in the
 * words strata-ref's startup.c says, both from this table (rules.def, {@link RulesDef}).
 */
final class RefLimits {
  private RefLimits() {}

  /** The largest head_dim (K or V) strata-ref's attention holds. */
  static final int MAX_HEAD_DIM = 256;

  /** The most KV heads strata-ref's attention holds. */
  static final int MAX_KV_HEADS = 64;

  /** Why strata-ref cannot run a model: the two limits, then the model's KV heads. */
  static final String WORDS =
      "strata-ref holds head_dim up to %s and at most %s KV heads; the model has %s KV heads";

  /** Whether strata-ref's attention holds this model's heads. */
  static boolean holds(ModelGeometry model) {
    return Math.max(model.headDim(), model.headDimV()) <= MAX_HEAD_DIM
        && model.kvHeads() <= MAX_KV_HEADS;
  }

  /** {@link #WORDS} filled for this model. */
  static String why(ModelGeometry model) {
    return PlanWords.fill(WORDS, MAX_HEAD_DIM, MAX_KV_HEADS, model.kvHeads());
  }
}
