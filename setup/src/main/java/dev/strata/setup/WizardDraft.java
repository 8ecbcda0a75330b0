package dev.strata.setup;

import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.ModelGeometry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The wizard's answers so far ({@link Wizard} asks, {@link WizardScreens} shows them, {@link
 * WizardAdvice} tries changes on copies); null = not answered (the planned default is offered).
 */
final class WizardDraft {
  /** The questions, in the order asked. */
  enum Step {
    MODEL("model", EngineFlags.MODEL),
    CONTEXT("context", EngineFlags.CTX),
    EXPERTS("experts", EngineFlags.EXPERTS),
    KV("kv", EngineFlags.KV),
    LIBRARY("library", "--engine-lib");

    final String label;
    final String flag;

    Step(String label, String flag) {
      this.label = label;
      this.flag = flag;
    }
  }

  GgufModel model;
  Long context;
  ExpertsMode experts;
  boolean kvAnswered;
  KvFormat kv;
  Path library;

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
    return switch (s) {
      case MODEL -> model != null;
      case CONTEXT -> context != null;
      case EXPERTS -> experts != null;
      case KV -> kvAnswered;
      case LIBRARY -> library != null;
    };
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
