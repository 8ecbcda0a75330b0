package dev.strata.engine.gen;

import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;

/**
 * What the user chose. A null field is "not chosen": the generator fills it from the plan, as if
 * {@code --kv} were absent (docs/GOLDEN.md, default identity).
 *
 * @param context context in tokens, or null for the planned default
 * @param experts experts mode, or null for the planned default
 * @param kv the {@code --kv} format, or null for none (the default path: no {@code --kv} written)
 */
public record Answers(Long context, ExpertsMode experts, KvFormat kv) {
  /** Every answer left to the plan. */
  public static final Answers DEFAULTS = new Answers(null, null, null);

  public Answers withKv(KvFormat format) {
    return new Answers(context, experts, format);
  }
}
