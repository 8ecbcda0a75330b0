package dev.strata.setup;

import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.setup.gen.Given;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The wizard's answers so far ({@link Wizard} asks, {@link WizardScreens} shows them, {@link
 * WizardAdvice} tries changes on copies); null = not answered (the planned default is offered).
 */
final class WizardDraft {
  /**
   * The questions, in the order asked: one row each, with everything the flow knows of it besides
   * how it is asked ({@link Wizard}) — its summary label, the option that answers it on the command
   * line (also the question's id), whether the answer shapes the memory plan, and when the draft
   * has it.
   */
  enum Step {
    MODEL("model", EngineFlags.MODEL, false, d -> d.model != null),
    CONTEXT("context", EngineFlags.CTX, true, d -> d.context != null),
    EXPERTS("experts", EngineFlags.EXPERTS, true, d -> d.experts != null),
    KV("kv", EngineFlags.KV, true, d -> d.kvAnswered),
    LIBRARY("library", "--engine-lib", false, d -> d.library != null);

    final String label;
    final String flag;

    /**
     * True when the answer changes whether the plan fits (context, experts, KV format): a plan that
     * does not fit is told as a refusal, not asked again, only when none of these was asked.
     */
    final boolean shapesPlan;

    private final Predicate<WizardDraft> answered;

    Step(String label, String flag, boolean shapesPlan, Predicate<WizardDraft> answered) {
      this.label = label;
      this.flag = flag;
      this.shapesPlan = shapesPlan;
      this.answered = answered;
    }
  }

  GgufModel model;
  Long context;
  ExpertsMode experts;
  boolean kvAnswered;
  KvFormat kv;
  Path library;

  /**
   * The draft of what the command line and the answers file said ({@code given}); the model, when
   * named, is read here (its problems are told before any question).
   */
  static WizardDraft of(Given given) {
    WizardDraft d = new WizardDraft();
    d.model = given.model() != null ? GgufReader.readModel(given.model()) : null;
    d.context = given.context();
    d.experts = given.experts();
    d.kv = given.kv();
    d.kvAnswered = given.kv() != null; // no --kv given: asked (null is an answer: the default path)
    d.library = given.engineLib();
    return d;
  }

  WizardDraft copy() {
    WizardDraft c = new WizardDraft();
    c.set(this);
    return c;
  }

  void set(WizardDraft o) {
    model = o.model;
    context = o.context;
    experts = o.experts;
    kvAnswered = o.kvAnswered;
    kv = o.kv;
    library = o.library;
  }

  boolean has(Step s) {
    return s.answered.test(this);
  }

  /** The steps this draft has no answer for, in the order asked. */
  List<Step> unanswered() {
    List<Step> out = new ArrayList<>();
    for (Step s : Step.values()) {
      if (!has(s)) {
        out.add(s);
      }
    }
    return out;
  }

  /**
   * A new model {@code m}: the later answers that no longer make sense for it are dropped (asked
   * again); returns a note for each.
   */
  List<String> keepWhatStillFits(GgufModel m) {
    List<String> notes = new ArrayList<>();
    ModelGeometry g = m.geometry();
    if (context != null && g.trainedContext() > 0 && context > g.trainedContext()) {
      notes.add("  context " + context + " is above this model's trained context: asked again");
      context = null;
    }
    if (kvAnswered && kv == KvFormat.Q4_0 && g.headDim() != 256) {
      notes.add("  q4_0 needs head_dim 256, this model has " + g.headDim() + ": asked again");
      kvAnswered = false;
      kv = null;
    }
    return notes;
  }
}
