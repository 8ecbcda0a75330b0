package dev.strata.engine.flags;

import dev.strata.engine.Backend;
import java.util.Locale;

/**
 * Renders {@code engine/native/src/flags.def}: the flag table as a C X-macro list, so strata-ref's
 * parser takes the same flags, ranges, choices, defaults and backends as the Java side. A test
 * compares the committed file with this rendering.
 */
public final class FlagsDef {
  private FlagsDef() {}

  /** The whole of {@code flags.def}. */
  public static String render() {
    StringBuilder c = new StringBuilder();
    c.append("/* engine/native/src/flags.def: GENERATED from dev.strata.engine.flags.EngineFlags\n")
        .append(" * by FlagsDef. Do not edit: change the table, then run the engine tests with\n")
        .append(" * -Dgolden.update=true.\n")
        .append(" *\n")
        .append(" * X-macro list. Define STRATA_FLAG and the STRATA_KIND_* macros, then include:\n")
        .append(" *\n")
        .append(" *   STRATA_FLAG(name, kind, default, backends)\n")
        .append(" *     name      the flag as typed, a string literal: \"--ctx\"\n")
        .append(" *     kind      STRATA_KIND_INT(min, max)  whole number, plain decimal\n")
        .append(" *               STRATA_KIND_ENUM(\"a|b\")     one of the '|'-separated words\n")
        .append(" *               STRATA_KIND_PATH            a path (only --model is required)\n")
        .append(" *               STRATA_KIND_SWITCH          no value\n")
        .append(" *     default   a string literal, or NULL when the flag has none\n")
        .append(" *     backends  an OR of STRATA_BACKEND_METAL, STRATA_BACKEND_CPU_REFERENCE,\n")
        .append(" *               STRATA_BACKEND_PC (defaults below: 1, 2, 4)\n")
        .append(" *\n")
        .append(" *   STRATA_ENV(name, values)  one env switch; values \"a|b\". Optional: define\n")
        .append(" *                             STRATA_ENV to receive them.\n")
        .append(" *\n")
        .append(" * Rows are in render order. Each flag takes its value as the next argument.\n")
        .append(" */\n")
        .append("#ifndef STRATA_BACKEND_METAL\n");
    int bit = 1;
    for (Backend b : Backend.values()) {
      c.append("#define ").append(macro(b)).append(' ').append(bit).append('\n');
      bit <<= 1;
    }
    c.append("#endif\n")
        .append("#ifndef STRATA_ENV\n")
        .append("#define STRATA_ENV(name, values)\n")
        .append("#define STRATA_FLAGS_DEF_OWN_ENV\n")
        .append("#endif\n\n");
    for (FlagSpec f : EngineFlags.flags()) {
      c.append("STRATA_FLAG(")
          .append(quote(f.name()))
          .append(", ")
          .append(kind(f.kind()))
          .append(", ")
          .append(f.defaultValue() == null ? "NULL" : quote(f.defaultValue()))
          .append(", ")
          .append(backends(f))
          .append(")\n");
    }
    c.append('\n');
    for (EnvSwitch s : EnvPolicy.switches()) {
      c.append("STRATA_ENV(")
          .append(quote(s.name()))
          .append(", ")
          .append(quote(String.join("|", s.values())))
          .append(")\n");
    }
    c.append("\n#ifdef STRATA_FLAGS_DEF_OWN_ENV\n")
        .append("#undef STRATA_ENV\n")
        .append("#undef STRATA_FLAGS_DEF_OWN_ENV\n")
        .append("#endif\n");
    return c.toString();
  }

  private static String macro(Backend b) {
    return "STRATA_BACKEND_" + b.name().toUpperCase(Locale.ROOT);
  }

  private static String kind(ValueKind k) {
    return switch (k) {
      case ValueKind.IntRange r -> "STRATA_KIND_INT(" + r.min() + ", " + r.max() + ")";
      case ValueKind.Choice ch -> "STRATA_KIND_ENUM(" + quote(String.join("|", ch.values())) + ")";
      case ValueKind.PathValue _ -> "STRATA_KIND_PATH";
      case ValueKind.Switch _ -> "STRATA_KIND_SWITCH";
    };
  }

  private static String backends(FlagSpec f) {
    return String.join(" | ", f.backends().stream().map(FlagsDef::macro).toList());
  }

  private static String quote(String s) {
    // table text is plain ASCII words; refuse anything that would need C escapes
    if (!s.chars().allMatch(ch -> ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\')) {
      throw new IllegalStateException("not plain text for a C literal: " + s);
    }
    return '"' + s + '"';
  }
}
