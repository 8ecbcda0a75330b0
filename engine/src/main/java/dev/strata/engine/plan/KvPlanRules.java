package dev.strata.engine.plan;

import dev.strata.engine.Backend;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.kv.KvRules;
import dev.strata.engine.model.ModelGeometry;
import java.util.ArrayList;
import java.util.List;

/**
 * The refusal of a KV format that cannot hold a model's head vectors. It names the model's head
 * sizes and the formats that model can use on each engine, so it never sends a user in a loop
 * ("drop --kv q4_0" into "int8 cannot hold it").
 */
final class KvPlanRules {
  /** How every refusal of {@link #cannotHold} starts, and no other plan refusal does. */
  static final String PREFIX = "kv: ";

  private KvPlanRules() {}

  /** One line: why the pools cannot hold the model, and what it can use instead. */
  static String cannotHold(KvFormat pools, ModelGeometry model, Backend backend, String why) {
    List<String> here = new ArrayList<>();
    for (KvFormat f : KvRules.poolFormats(backend)) {
      if (f.holds(model.headDim(), model.headDimV())) {
        here.add("--kv " + f.flagName());
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
            ? "head_dim " + model.headDim()
            : "K head_dim " + model.headDim() + ", V head_dim " + model.headDimV();
    String can;
    if (!here.isEmpty()) {
      can = "use " + String.join(" or ", here);
    } else if (!pc.isEmpty()) {
      can =
          "no KV format of the "
              + backend.id()
              + " engine holds it (int8 needs a multiple of 64, q4_0 exactly 256); the pc engine"
              + " runs it with --kv "
              + String.join(", ", pc);
    } else {
      can = "no KV format of any Strata engine holds it";
    }
    return PREFIX
        + pools.flagName()
        + " pools cannot hold this "
        + model.architecture()
        + " model's "
        + dims
        + " ("
        + why
        + "); "
        + can;
  }
}
