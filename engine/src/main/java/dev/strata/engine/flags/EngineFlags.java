package dev.strata.engine.flags;

import dev.strata.engine.Backend;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The engine flag table — every flag the engines take, in the manner of llama.cpp's {@code
 * common/arg.cpp}: one row per flag, and everything else (validation, argv rendering, the typed
 * {@link EngineArgs} view, {@code docs/FLAGS.md} through {@link FlagDocs}, strata-ref's {@code
 * flags.def} through {@link FlagsDef}) comes from it. The env switches and the rules for the
 * environment a config may set are {@link EnvPolicy}'s.
 *
 * <p>Row order is the order argv is rendered in. {@code --kv} is the last row so that opting into
 * q4_0 appends exactly its pair at the end of a generated config's args (docs/GOLDEN.md, default
 * identity).
 */
public final class EngineFlags {
  public static final String MODEL = "--model";
  public static final String CTX = "--ctx";
  public static final String EXPERTS = "--experts";
  public static final String THREADS = "--threads";
  public static final String MEM_BUDGET_MB = "--mem-budget-mb";
  public static final String SPEC = "--spec";
  public static final String SUFFIX_DRAFT = "--suffix-draft";
  public static final String KV_RESIDENT = "--kv-resident";
  public static final String PARALLEL = "--parallel";
  public static final String PROMPT_TOKENS = "--prompt-tokens";
  public static final String N_PREDICT = "--n-predict";
  public static final String FAULT = "--fault";
  public static final String KV = "--kv";

  /** Most sequences strata-ref holds at once ({@code --parallel}). */
  public static final int MAX_PARALLEL = 64;

  /** Largest context the engines take: 1 Mi tokens. */
  public static final int MAX_CTX = 1 << 20;

  /** Most threads the engines take; the plan's default (the performance cores) stops there. */
  public static final int MAX_THREADS = 1024;

  /** Largest memory budget: 16 TiB in MiB, far above any Mac, low enough to stay exact in C. */
  public static final long MAX_MEM_BUDGET_MB = 16L << 20;

  private static final Set<Backend> ALL = EnumSet.allOf(Backend.class);
  private static final Set<Backend> PC_ONLY = EnumSet.of(Backend.PC);
  private static final Set<Backend> REF_ONLY = EnumSet.of(Backend.CPU_REFERENCE);

  private static final List<FlagSpec> FLAGS =
      List.of(
          new FlagSpec(
              MODEL,
              "PATH",
              new ValueKind.PathValue(),
              null,
              "required",
              "The model: its first shard (NAME-00001-of-0000N.gguf) or its only file.",
              ALL,
              true),
          new FlagSpec(
              CTX,
              "N",
              new ValueKind.IntRange(1, MAX_CTX),
              "4096",
              "",
              "Context length in tokens; every KV pool holds N + 128 cells.",
              ALL,
              false),
          new FlagSpec(
              EXPERTS,
              "MODE",
              choices(ExpertsMode.values(), ExpertsMode::id),
              ExpertsMode.STREAM.id(),
              "",
              "Where the MoE experts live: stream them from the SSD through an arena of resident"
                  + " slots, or keep every expert resident in memory.",
              ALL,
              false),
          new FlagSpec(
              THREADS,
              "N",
              new ValueKind.IntRange(0, MAX_THREADS),
              "0",
              "0 = the performance cores",
              "CPU threads the engine runs its host-side work on.",
              ALL,
              false),
          new FlagSpec(
              MEM_BUDGET_MB,
              "N",
              new ValueKind.IntRange(0, MAX_MEM_BUDGET_MB),
              "0",
              "0 = the memory plan's",
              "Memory the engine may use, in MiB.",
              ALL,
              false),
          new FlagSpec(
              SPEC,
              "N",
              new ValueKind.IntRange(0, 16),
              "0",
              "0 = off",
              "MTP draft tokens per step (speculative decoding).",
              ALL,
              false),
          new FlagSpec(
              SUFFIX_DRAFT,
              "N",
              new ValueKind.IntRange(0, 64),
              "0",
              "0 = off",
              "Suffix-match draft tokens per step.",
              ALL,
              false),
          new FlagSpec(
              KV_RESIDENT,
              "",
              new ValueKind.Switch(),
              null,
              "off",
              "Keep the KV cache resident while the experts stream (PC engine only).",
              PC_ONLY,
              false),
          new FlagSpec(
              PARALLEL,
              "N",
              new ValueKind.IntRange(1, MAX_PARALLEL),
              "1",
              "",
              "Sequences the session holds at once (strata-launch --serve --parallel N), each with"
                  + " its own KV pools of --ctx + 128 cells: the pools are N times one sequence's.",
              REF_ONLY,
              false),
          new FlagSpec(
              PROMPT_TOKENS,
              "N",
              new ValueKind.IntRange(1, MAX_CTX),
              "512",
              "",
              "Tokens of the synthetic prompt strata-ref prefills.",
              REF_ONLY,
              false),
          new FlagSpec(
              N_PREDICT,
              "N",
              new ValueKind.IntRange(0, MAX_CTX),
              "64",
              "",
              "Synthetic decode steps strata-ref runs after the prompt.",
              REF_ONLY,
              false),
          new FlagSpec(
              FAULT,
              "KIND",
              choices(EngineArgs.Fault.values(), EngineArgs.Fault::id),
              null,
              "none",
              "Make strata-ref crash on purpose (SIGSEGV or SIGABRT), to test strata-launch"
                  + " --isolate.",
              REF_ONLY,
              false),
          new FlagSpec(
              KV,
              "FORMAT",
              choices(KvFormat.values(), KvFormat::flagName),
              null,
              "none: the int8 path on Metal",
              "KV-cache format. On Metal fp16 runs on the int8 pools, q4_0 is the opt-in smaller"
                  + " format (576 B per cell per QSA layer against 1,056), and k8v4 is refused at"
                  + " startup.",
              ALL,
              false));

  private static final Map<String, FlagSpec> BY_NAME = index();

  /** See {@link #defaults()}. */
  private static final EngineArgs DEFAULTS = new EngineArgs(Map.of());

  private EngineFlags() {}

  private static <E> ValueKind.Choice choices(
      E[] values, java.util.function.Function<E, String> id) {
    return new ValueKind.Choice(Arrays.stream(values).map(id).toList());
  }

  private static Map<String, FlagSpec> index() {
    Map<String, FlagSpec> m = new LinkedHashMap<>();
    for (FlagSpec f : FLAGS) {
      if (m.put(f.name(), f) != null) {
        throw new ExceptionInInitializerError("duplicate flag " + f.name());
      }
    }
    return m;
  }

  /** Every flag, in table (= render) order. */
  public static List<FlagSpec> flags() {
    return FLAGS;
  }

  /** The row of a flag, or null when there is none. */
  public static FlagSpec lookup(String name) {
    return BY_NAME.get(name);
  }

  /**
   * The typed view of an argv that gives no optional flag: every accessor reads its row's default
   * ({@code --ctx 4096}, {@code --experts stream}, no {@code --kv}, …), except {@link
   * EngineArgs#model}, which has none and throws {@link NullPointerException}. What the engine runs
   * with when a flag is absent, for callers that need those defaults without an argv (the memory
   * plan's {@code PlanRequest}).
   */
  public static EngineArgs defaults() {
    return DEFAULTS;
  }

  /**
   * Validates an engine argv for a backend and returns its typed view.
   *
   * @param argv the engine's arguments (no program name)
   * @param backend the backend that will run them; null checks the flags against every backend's
   *     union (for a caller that does not know the backend yet)
   * @throws FlagException naming the flag and what is allowed: an unknown flag (with a "did you
   *     mean"), a missing or bad value, a flag this backend does not take, a flag given twice, a
   *     missing {@code --model}, a stray word; for the cpu-reference backend, a workload its pool
   *     cannot hold ({@link PoolRule})
   */
  public static EngineArgs parse(List<String> argv, Backend backend) {
    Map<String, String> values = new HashMap<>();
    Map<String, Integer> seenAt = new HashMap<>();
    int i = 0;
    while (i < argv.size()) {
      String item = argv.get(i);
      if (item == null) {
        throw FlagException.arg(i, "argument " + (i + 1) + " is missing (null)");
      }
      FlagSpec spec = BY_NAME.get(item);
      if (spec == null) {
        throw unknown(i, item);
      }
      Integer first = seenAt.putIfAbsent(item, i);
      if (first != null) {
        throw FlagException.arg(
            i,
            item + " is given twice (arguments " + (first + 1) + " and " + (i + 1) + "); keep one");
      }
      if (backend != null && !spec.acceptedBy(backend)) {
        throw FlagException.arg(
            i,
            item
                + " is not accepted by the "
                + backend.id()
                + " backend (only by "
                + spec.backendsText()
                + ")");
      }
      if (spec.isSwitch()) {
        values.put(item, "");
        i++;
        continue;
      }
      if (i + 1 >= argv.size() || isFlagLike(argv.get(i + 1))) {
        throw FlagException.arg(i, item + ": missing value (" + spec.kind().describe() + ")");
      }
      String value = argv.get(i + 1);
      String problem = spec.kind().problem(value);
      if (problem != null) {
        throw FlagException.arg(i + 1, item + ": " + problem);
      }
      values.put(item, value);
      i += 2;
    }
    for (FlagSpec f : FLAGS) {
      if (f.required() && !values.containsKey(f.name())) {
        throw FlagException.arg(-1, f.name() + " is required (" + f.help() + ")");
      }
    }
    EngineArgs parsed = new EngineArgs(values);
    // the one rule across flags: strata-ref's workload must fit its pool (PoolRule)
    String pool = PoolRule.problem(parsed, backend);
    if (pool != null) {
      Integer ctxAt = seenAt.get(CTX);
      throw FlagException.arg(ctxAt != null ? ctxAt + 1 : -1, pool);
    }
    return parsed;
  }

  private static boolean isFlagLike(String s) {
    // a value never starts with "--": "--ctx --kv q4_0" is a forgotten value, not a context of
    // "--kv"
    return s == null || s.startsWith("--");
  }

  private static FlagException unknown(int index, String item) {
    if (!item.startsWith("-")) {
      return FlagException.arg(
          index,
          "unexpected argument '" + item + "' (flags start with --, and each takes one value)");
    }
    int eq = item.indexOf('=');
    if (eq > 0 && BY_NAME.containsKey(item.substring(0, eq))) {
      String name = item.substring(0, eq);
      return FlagException.arg(
          index,
          "write "
              + name
              + " and its value as two arguments, not '"
              + item
              + "' (a flag takes its value as the next argument)");
    }
    return FlagException.arg(
        index,
        "unknown flag '" + item + "'" + Suggest.didYouMeanOrKnown(item, BY_NAME.keySet(), " "));
  }

  /**
   * Renders argv from flag values, in table order, after checking them as {@link #parse} does.
   *
   * @param values flag name → value; "" for a switch that is on (leave a switch that is off out)
   * @param backend the backend that will run them, or null for no backend check
   * @throws FlagException on an unknown flag, a bad value, or a flag the backend does not take
   */
  public static List<String> render(Map<String, String> values, Backend backend) {
    for (String name : values.keySet()) {
      if (!BY_NAME.containsKey(name)) {
        throw unknown(-1, name);
      }
    }
    List<String> argv = new ArrayList<>();
    for (FlagSpec f : FLAGS) {
      String v = values.get(f.name());
      if (v == null) {
        continue;
      }
      argv.add(f.name());
      if (!f.isSwitch()) {
        argv.add(v);
      } else if (!v.isEmpty()) {
        throw FlagException.arg(-1, f.name() + ": takes no value, got '" + v + "'");
      }
    }
    parse(argv, backend);
    return List.copyOf(argv);
  }
}
