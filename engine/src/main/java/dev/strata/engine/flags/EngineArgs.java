package dev.strata.engine.flags;

import dev.strata.engine.Keyword;
import dev.strata.engine.Keywords;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The typed view of a validated engine argv ({@link EngineFlags#parse}). A flag that was absent
 * holds the table's default.
 *
 * @param model the first shard ({@code --model})
 * @param ctx context tokens ({@code --ctx})
 * @param experts experts mode ({@code --experts})
 * @param threads threads, 0 = the performance cores ({@code --threads})
 * @param memBudgetMb memory the engine may use in MiB, 0 = the plan's ({@code --mem-budget-mb})
 * @param kv the requested KV format, or null when {@code --kv} is absent (the default path)
 * @param spec MTP draft tokens ({@code --spec})
 * @param suffixDraft suffix draft tokens ({@code --suffix-draft})
 * @param kvResident keep the KV resident (pc only, {@code --kv-resident})
 * @param promptTokens synthetic prompt tokens (strata-ref only, {@code --prompt-tokens})
 * @param nPredict synthetic decode steps (strata-ref only, {@code --n-predict})
 * @param fault injected fault (strata-ref only, {@code --fault}), or null
 */
public record EngineArgs(
    Path model,
    int ctx,
    ExpertsMode experts,
    int threads,
    long memBudgetMb,
    KvFormat kv,
    int spec,
    int suffixDraft,
    boolean kvResident,
    int promptTokens,
    int nPredict,
    Fault fault) {

  /** The faults strata-ref can inject, to test {@code strata-launch --isolate}. */
  public enum Fault implements Keyword {
    /** Dereference a null pointer: SIGSEGV. */
    SEGV,
    /** Call abort(): SIGABRT. */
    ABORT;

    /** Parses a flag value; null when unknown. */
    public static Fault fromId(String id) {
      return Keywords.find(Fault.class, Fault::id, id);
    }
  }

  /**
   * The shortest argv meaning these values: {@code --model} and every flag whose value differs from
   * the table's default, in table order (so {@code --kv} comes last). {@code parse(toArgv())} gives
   * back an equal record.
   */
  public List<String> toArgv() {
    List<String> out = new ArrayList<>();
    for (FlagSpec f : EngineFlags.flags()) {
      String v = valueOf(f.name());
      if (f.required() || (v != null && !v.equals(f.defaultValue()))) {
        if (f.isSwitch()) {
          if (v != null) {
            out.add(f.name());
          }
        } else {
          out.add(f.name());
          out.add(v);
        }
      }
    }
    return List.copyOf(out);
  }

  /**
   * The value of a flag as argv text, or null when the flag is unset (a switch that is off, no
   * {@code --kv}, no {@code --fault}); a switch that is on gives "".
   */
  public String valueOf(String flag) {
    return switch (flag) {
      case EngineFlags.MODEL -> model.toString();
      case EngineFlags.CTX -> Integer.toString(ctx);
      case EngineFlags.EXPERTS -> experts.id();
      case EngineFlags.THREADS -> Integer.toString(threads);
      case EngineFlags.MEM_BUDGET_MB -> Long.toString(memBudgetMb);
      case EngineFlags.KV -> kv == null ? null : kv.flagName();
      case EngineFlags.SPEC -> Integer.toString(spec);
      case EngineFlags.SUFFIX_DRAFT -> Integer.toString(suffixDraft);
      case EngineFlags.KV_RESIDENT -> kvResident ? "" : null;
      case EngineFlags.PROMPT_TOKENS -> Integer.toString(promptTokens);
      case EngineFlags.N_PREDICT -> Integer.toString(nPredict);
      case EngineFlags.FAULT -> fault == null ? null : fault.id();
      default -> throw new IllegalArgumentException("not an engine flag: " + flag);
    };
  }
}
