package dev.strata.engine.flags;

import dev.strata.engine.Keyword;
import dev.strata.engine.Keywords;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The typed view of a validated engine argv, made only by {@link EngineFlags#parse} (and {@link
 * EngineFlags#defaults}, the view of no optional flag). It holds the values as given, checked by
 * their table row; a flag that was absent reads as the row's default. Everything generic (the text
 * of a value, {@link #toArgv}, equality) walks the table, so adding an engine flag is one row in
 * {@link EngineFlags} and one accessor here (docs/FLAGS.md, "Adding a flag"); {@code
 * EngineArgsTest} checks that every row has its accessor.
 *
 * <p>Two views are equal when every flag has the same effective value ({@code --ctx 4096} given
 * equals {@code --ctx} absent: 4096 is the default).
 */
public final class EngineArgs {

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

  /** flag → value as given ("" for a switch that is on), each checked by its row. */
  private final Map<String, String> given;

  EngineArgs(Map<String, String> given) {
    this.given = Map.copyOf(given);
  }

  /** The first shard ({@code --model}). */
  public Path model() {
    return Path.of(valueOf(EngineFlags.MODEL));
  }

  /** Context tokens ({@code --ctx}). */
  public int ctx() {
    return whole(EngineFlags.CTX);
  }

  /** Experts mode ({@code --experts}). */
  public ExpertsMode experts() {
    return ExpertsMode.fromId(valueOf(EngineFlags.EXPERTS));
  }

  /** Threads, 0 = the performance cores ({@code --threads}). */
  public int threads() {
    return whole(EngineFlags.THREADS);
  }

  /** Memory the engine may use in MiB, 0 = the plan's ({@code --mem-budget-mb}). */
  public long memBudgetMb() {
    return Long.parseLong(valueOf(EngineFlags.MEM_BUDGET_MB));
  }

  /** The requested KV format, or null when {@code --kv} is absent (the default path). */
  public KvFormat kv() {
    String v = valueOf(EngineFlags.KV);
    return v == null ? null : KvFormat.fromName(v);
  }

  /** MTP draft tokens ({@code --spec}). */
  public int spec() {
    return whole(EngineFlags.SPEC);
  }

  /** Suffix draft tokens ({@code --suffix-draft}). */
  public int suffixDraft() {
    return whole(EngineFlags.SUFFIX_DRAFT);
  }

  /** Keep the KV resident (pc only, {@code --kv-resident}). */
  public boolean kvResident() {
    return valueOf(EngineFlags.KV_RESIDENT) != null;
  }

  /** Sequences held at once, each with its own KV pools (strata-ref only, {@code --parallel}). */
  public int parallel() {
    return whole(EngineFlags.PARALLEL);
  }

  /** Synthetic prompt tokens (strata-ref only, {@code --prompt-tokens}). */
  public int promptTokens() {
    return whole(EngineFlags.PROMPT_TOKENS);
  }

  /** Synthetic decode steps (strata-ref only, {@code --n-predict}). */
  public int nPredict() {
    return whole(EngineFlags.N_PREDICT);
  }

  /** Injected fault (strata-ref only, {@code --fault}), or null. */
  public Fault fault() {
    String v = valueOf(EngineFlags.FAULT);
    return v == null ? null : Fault.fromId(v);
  }

  /** An int-valued row's value; its range (checked by the row) fits an int. */
  private int whole(String flag) {
    return Integer.parseInt(valueOf(flag));
  }

  /**
   * The shortest argv meaning these values: {@code --model} and every flag whose value differs from
   * the table's default, in table order (so {@code --kv} comes last). {@code parse(toArgv())} gives
   * back an equal view.
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
   * The value of a flag as argv text — as given, else the row's default — or null when the flag is
   * unset (a switch that is off, no {@code --kv}, no {@code --fault}); a switch that is on gives
   * "".
   *
   * @throws IllegalArgumentException when {@code flag} has no row
   */
  public String valueOf(String flag) {
    FlagSpec row = EngineFlags.lookup(flag);
    if (row == null) {
      throw new IllegalArgumentException("not an engine flag: " + flag);
    }
    String v = given.get(flag);
    return v != null ? v : row.defaultValue();
  }

  private List<String> effective() {
    List<String> out = new ArrayList<>();
    for (FlagSpec f : EngineFlags.flags()) {
      out.add(valueOf(f.name()));
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EngineArgs other && effective().equals(other.effective());
  }

  @Override
  public int hashCode() {
    return Objects.hash(effective().toArray());
  }

  @Override
  public String toString() {
    return "EngineArgs" + toArgv();
  }
}
