package dev.strata.engine.plan;

import dev.strata.engine.Backend;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ModelGeometry;
import java.util.ArrayList;
import java.util.List;

/**
 * The refusal of KV pools that cannot hold a model's head vectors: the format's records ({@link
 * KvFormat#whyNot}) and, on cpu-reference, strata-ref's own limits ({@link RefLimits}). It names
 * the model's head sizes and the formats that model can use on each engine, so it never sends a
 * user in a loop ("drop --kv q4_0" into "int8 cannot hold it"). strata-ref's startup.c says the
 * same sentence from these words (rules.def, {@link RulesDef}); {@code RulesParityTest} holds the
 * two equal.
 */
final class KvPlanRules {
  /** How every refusal of {@link #refusal} starts, and no other plan refusal does. */
  static final String PREFIX = "kv: ";

  /** The whole refusal: the pools' format, the architecture, {@link #HEAD_DIM}, why, what to do. */
  static final String CANNOT_HOLD = PREFIX + "%s pools cannot hold this %s model's %s (%s); %s";

  /** The model's head size when K and V have the same. */
  static final String HEAD_DIM = "head_dim %s";

  /** The model's head sizes when K and V differ. */
  static final String HEAD_DIMS = "K head_dim %s, V head_dim %s";

  /**
   * What to do when formats of this engine hold the model: {@link #FLAG}s joined by {@link #OR}.
   */
  static final String USE = "use %s";

  static final String FLAG = "--kv %s";

  static final String OR = " or ";

  /**
   * No format of this engine holds the model: the engine, its note ({@link #METAL_NOTE}, or nothing
   * where the why already said it), the pc engine's formats joined by {@link #LIST}.
   */
  static final String NONE_HERE =
      "no KV format of the %s engine holds it%s; the pc engine runs it with --kv %s";

  /** What the Metal engine's formats hold, in {@link #NONE_HERE}. */
  static final String METAL_NOTE = " (int8 needs a multiple of 64, q4_0 exactly 256)";

  static final String LIST = ", ";

  /** No format of any engine holds the model. */
  static final String NONE_ANYWHERE = "no KV format of any Strata engine holds it";

  private KvPlanRules() {}

  /**
   * One line: why {@code pools} cannot hold the model on this backend, and what it can use instead;
   * null when they can.
   */
  static String refusal(KvFormat pools, ModelGeometry model, Backend backend) {
    // strata-ref's limits first: past them no format of it holds the model, whatever its records
    boolean engineHolds = backend != Backend.CPU_REFERENCE || RefLimits.holds(model);
    String why =
        engineHolds ? pools.whyNot(model.headDim(), model.headDimV()) : RefLimits.why(model);
    if (why == null) {
      return null;
    }
    List<String> here = new ArrayList<>();
    for (KvFormat f : engineHolds ? KvRules.poolFormats(backend) : List.<KvFormat>of()) {
      if (f.holds(model.headDim(), model.headDimV())) {
        here.add(PlanWords.fill(FLAG, f.flagName()));
      }
    }
    List<String> pc = new ArrayList<>();
    if (backend != Backend.PC) {
      for (KvFormat f : KvRules.poolFormats(Backend.PC)) {
        if (f.holds(model.headDim(), model.headDimV())) {
          pc.add(f.flagName());
        }
      }
    }
    String dims =
        model.headDim() == model.headDimV()
            ? PlanWords.fill(HEAD_DIM, model.headDim())
            : PlanWords.fill(HEAD_DIMS, model.headDim(), model.headDimV());
    String can;
    if (!here.isEmpty()) {
      can = PlanWords.fill(USE, String.join(OR, here));
    } else if (!pc.isEmpty()) {
      can = PlanWords.fill(NONE_HERE, backend.id(), note(backend), String.join(LIST, pc));
    } else {
      can = NONE_ANYWHERE;
    }
    return PlanWords.fill(CANNOT_HOLD, pools.flagName(), model.architecture(), dims, why, can);
  }

  /** {@link #NONE_HERE}'s note of a backend: on cpu-reference the why names strata-ref's limits. */
  static String note(Backend backend) {
    return backend == Backend.CPU_REFERENCE ? "" : METAL_NOTE;
  }
}
