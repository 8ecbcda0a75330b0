package dev.strata.engine.kv;

import java.util.List;
import java.util.function.Function;

/** What a backend does with a requested KV format: run it (perhaps on other pools) or refuse. */
public sealed interface KvDecision {

  /**
   * This decision when the engine runs; else {@code refusal} of the refusal's message is thrown.
   * (An {@code instanceof} test rather than a pattern {@code switch}: a type switch is linked at
   * run time by a generated class, which the AOT cache cannot hold, and {@code strata-setup
   * --print} goes through here: docs/PERFORMANCE.md.)
   */
  default Accepted acceptedOr(Function<String, ? extends RuntimeException> refusal) {
    if (this instanceof Refused r) {
      throw refusal.apply(r.message());
    }
    return (Accepted) this;
  }

  /**
   * The engine runs.
   *
   * @param requested the {@code --kv} value, or null when none was given
   * @param pools the format the pools are really allocated in (fp16 → int8 on Metal)
   * @param notes lines for the log and the plan (for example the fp16 → int8 mapping)
   */
  record Accepted(KvFormat requested, KvFormat pools, List<String> notes) implements KvDecision {
    public Accepted {
      notes = List.copyOf(notes);
    }
  }

  /** The engine refuses at startup with this exact message. */
  record Refused(String message) implements KvDecision {}
}
