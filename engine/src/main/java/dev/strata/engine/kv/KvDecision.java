package dev.strata.engine.kv;

import java.util.List;

/** What a backend does with a requested KV format: run it (perhaps on other pools) or refuse. */
public sealed interface KvDecision {

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
