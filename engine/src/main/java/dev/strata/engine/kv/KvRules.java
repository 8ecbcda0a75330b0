package dev.strata.engine.kv;

import dev.strata.engine.Backend;
import dev.strata.engine.text.AsciiDigits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which backend accepts, maps or refuses each KV format (docs/ENGINE-CONTRACT.md, KV formats, the
 * seed's startup rules), and in which format each allocates its pools: the one place that decides
 * it ({@link #poolFormats} derives from {@link #decide}). The launcher's preflight and strata-ref
 * (engine/native/src/startup.c) applies the same rules from the table {@code RulesDef} renders for
 * it.
 */
public final class KvRules {

  /** The upstream Metal engine's refusal, verbatim. */
  public static final String K8V4_REFUSAL =
      "metal window: --kv k8v4 is not implemented on Metal (use fp16, int8 or q4_0)";

  /** STRATA_KV_ROT=1 next to --kv int8 on Metal: names both and says why. */
  public static final String KV_ROT_INT8_REFUSAL =
      "metal window: STRATA_KV_ROT=1 with --kv int8 is refused on Metal: the snapshot tag would"
          + " claim a rotation the int8 pools do not have (unset STRATA_KV_ROT, or use --kv q4_0,"
          + " whose rotation is built in)";

  /** Said in the log and the plan when fp16 is asked for on Metal. */
  public static final String FP16_ON_METAL_NOTE =
      "kv: --kv fp16 runs on the int8 pools on Metal (one path: the log says KV int8)";

  /** The env switch of the PC's rotated int8 K/V. */
  public static final String KV_ROT_ENV = "STRATA_KV_ROT";

  /**
   * The blanks a switch's value may start with: C {@code isspace} in the C locale (space, tab,
   * newline, vertical tab, form feed, carriage return). strata-ref's {@code strata_switch_on} skips
   * exactly these (rules.def, {@code STRATA_SWITCH_BLANKS}).
   */
  public static final String SWITCH_BLANKS = " \t\n\u000B\f\r";

  private KvRules() {}

  /**
   * Decides for a backend.
   *
   * @param requested the {@code --kv} value, or null when the config has none (the default path)
   * @param env the engine's environment as the config sets it
   */
  public static KvDecision decide(Backend backend, KvFormat requested, Map<String, String> env) {
    boolean rot = kvRotOn(env.get(KV_ROT_ENV));
    List<String> notes = new ArrayList<>();
    if (backend == Backend.PC) {
      // The PC engine has every format; STRATA_KV_ROT rotates only its int8 pools.
      KvFormat pools = requested == null ? KvFormat.FP16 : requested;
      if (rot && pools == KvFormat.INT8) {
        notes.add("kv: STRATA_KV_ROT=1 rotates the int8 pools (FWHT-256)");
      }
      return new KvDecision.Accepted(requested, pools, notes);
    }
    // Metal, and strata-ref, which follows the Metal rules exactly, save one: its --kv fp16 pools
    // are real fp16 (the quality reference), where the Metal engine runs fp16 on its int8 pools.
    if (requested == KvFormat.K8V4) {
      return new KvDecision.Refused(K8V4_REFUSAL);
    }
    if (requested == KvFormat.INT8 && rot) {
      return new KvDecision.Refused(KV_ROT_INT8_REFUSAL);
    }
    KvFormat pools;
    if (requested == null || requested == KvFormat.INT8) {
      pools = KvFormat.INT8;
    } else if (requested == KvFormat.FP16 && backend == Backend.CPU_REFERENCE) {
      pools = KvFormat.FP16;
    } else if (requested == KvFormat.FP16) {
      pools = KvFormat.INT8;
      notes.add(FP16_ON_METAL_NOTE);
    } else {
      pools = KvFormat.Q4_0;
    }
    return new KvDecision.Accepted(requested, pools, notes);
  }

  /**
   * The decision of the default path: the engine run without {@code --kv}, under {@code env}. Never
   * refused (STRATA_KV_ROT alone is a no-op on every engine, as upstream's seed has it).
   *
   * @throws IllegalStateException if the table ever refused it (a broken rule, not a user's input)
   */
  public static KvDecision.Accepted defaultPath(Backend backend, Map<String, String> env) {
    return decide(backend, null, env).acceptedOr(IllegalStateException::new);
  }

  /**
   * The formats a backend allocates pools in, in {@link KvFormat} order: every format {@link
   * #decide} accepts for it, by the pools it maps to (fp16 and int8 on strata-ref, int8 and q4_0 on
   * Metal, all four on the PC engine).
   */
  public static List<KvFormat> poolFormats(Backend backend) {
    List<KvFormat> out = new ArrayList<>();
    for (KvFormat f : KvFormat.values()) {
      if (decide(backend, f, Map.of()) instanceof KvDecision.Accepted a
          && !out.contains(a.pools())) {
        out.add(a.pools());
      }
    }
    out.sort(null);
    return List.copyOf(out);
  }

  /**
   * STRATA_KV_ROT is read as the engines read it: C {@code atoi} of the value, on when non-zero.
   */
  public static boolean kvRotOn(String value) {
    if (value == null) {
      return false;
    }
    // atoi: C isspace blanks, then an optional sign, then ASCII digits (strata-ref:
    // strata_switch_on in memory.c, from the same SWITCH_BLANKS)
    String s = value;
    int i = 0;
    while (i < s.length() && SWITCH_BLANKS.indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
      i++;
    }
    int start = i;
    while (i < s.length() && AsciiDigits.is(s.charAt(i))) {
      i++;
    }
    if (i == start) {
      return false;
    }
    for (int k = start; k < i; k++) {
      if (s.charAt(k) != '0') {
        return true;
      }
    }
    return false;
  }
}
