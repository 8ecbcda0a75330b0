package dev.strata.engine.flags;

import dev.strata.engine.Backend;

/**
 * Renders {@code docs/FLAGS.md} from the flag table, so the docs cannot drift from what the engines
 * accept. A test compares the committed file with this rendering.
 */
public final class FlagDocs {
  private FlagDocs() {}

  /** The whole of {@code docs/FLAGS.md}. */
  public static String markdown() {
    StringBuilder md = new StringBuilder();
    md.append("# Engine flags\n\n")
        .append("<!-- Generated from dev.strata.engine.flags.EngineFlags by FlagDocs: do not edit.")
        .append(" To change a flag, change the table, then run the engine tests with")
        .append(" -Dgolden.update=true. -->\n\n")
        .append("Every flag the engines take, from one table (`EngineFlags`): `strata-setup`")
        .append(" writes them into a config's `args`, `strata-launch` checks them before it loads")
        .append(" anything, and strata-ref's parser includes the same table as `flags.def`, which")
        .append(
            " the build writes from it (`NativeSources`). Each flag takes its value as the next argument")
        .append(" (`--ctx` `32768`, not `--ctx=32768`); a flag may appear once.\n\n")
        .append("| flag | value | default | backends |\n")
        .append("|---|---|---|---|\n");
    for (FlagSpec f : EngineFlags.flags()) {
      row(
          md,
          "`" + f.usage() + "`",
          escape(f.kind().describe()),
          escape(defaultText(f)),
          f.backendsText());
    }
    md.append("\n");
    for (FlagSpec f : EngineFlags.flags()) {
      md.append("- `").append(f.usage()).append("`: ").append(f.help());
      md.append("\n");
    }
    md.append("\nBackends: ");
    for (Backend b : Backend.values()) {
      md.append(b == Backend.METAL ? "" : ", ").append('`').append(b.id()).append('`');
    }
    md.append(
            ". A flag a backend does not take is an error (exit 2), not ignored. No flag reads an"
                + " environment variable in its place.\n\n")
        .append(
            "Rules (exit 2, one line naming the flag): an unknown flag gets a \"did you mean\";")
        .append(" a missing or bad value names the allowed values or range; a flag given twice,")
        .append(" a stray word, or no `--model` is an error. Numbers are plain decimal digits.")
        .append(" `--kv k8v4` passes these checks and is refused at startup on Metal and")
        .append(" strata-ref (preflight, exit 3) with the upstream text.\n\n")
        .append("Rendering order is the table's; `--kv` is last, so opting into q4_0 appends")
        .append(" exactly `--kv`, `q4_0` to a generated config's args.\n\n")
        .append("## Adding a flag\n\n")
        .append("A flag is one row in `EngineFlags` (name, value kind, default, backends, help)")
        .append(" and one accessor in `EngineArgs`, named after the flag in camel case")
        .append(" (`--mem-budget-mb` is `memBudgetMb()`). The rest follows from the row: the")
        .append(
            " checks of a config's `args` (parsed once, when the config is read: `EngineConfig`")
        .append(" holds the typed view that preflight, the launch, the demo and setup use), argv")
        .append(" rendering, this page and strata-ref's `flags.def`. `EngineArgsTest` fails")
        .append(
            " for a row without its accessor, or whose value does not reach it. Regenerate this")
        .append(
            " page with the engine tests and `-Dgolden.update=true` (the build writes `flags.def`")
        .append(" itself), then teach the engines to act on the value (strata-ref: its options in")
        .append(" `engine/native/src/flags.c`, their use in `engine/native/src/startup.c`).\n\n")
        .append(
            "A flag a command also shows as its own option (`strata-setup --kv`, `strata-launch")
        .append(" demo --ctx`) is one more row, in that command's option table (`SetupOptions`,")
        .append(" `DemoCommand`): `EngineOptions.of(flag, help, parse)` takes its placeholder, its")
        .append(" check and its completion words from this table's row, and both the command's")
        .append(" picocli model and its start-up fast path are made from that table (`CliSpec`,")
        .append(" `SimpleArgs`); its use is the command's request (the answers `--ctx`,")
        .append(" `--experts` and `--kv` give the generator are read by one method,")
        .append(" `EngineOptions.answers`, for both commands). `SetupOptionsTest` adds")
        .append(" `--spec` to strata-setup that way.\n\n")
        .append("## Env switches\n\n")
        .append("| variable | values | what it changes |\n")
        .append("|---|---|---|\n");
    for (EnvSwitch s : EnvPolicy.switches()) {
      row(md, "`" + s.name() + "`", codeList(s.values(), ""), escape(s.help()));
    }
    md.append("\n## The environment a config may set\n\n")
        .append("A config's `env` is checked before anything runs (exit 2, one line naming the")
        .append(" variable):\n\n")
        .append("- a name is `[A-Za-z_][A-Za-z0-9_]*`, at most ")
        .append(EnvPolicy.MAX_ENV_NAME)
        .append(" characters; a value has no NUL or line break and is at most ")
        .append(EnvPolicy.MAX_ENV_VALUE_BYTES)
        .append(" bytes;\n")
        .append("- a `")
        .append(EnvPolicy.OWN_PREFIX)
        .append("*` name must be one of the switches above, with one of its values (an unknown")
        .append(" one is a typo, and gets a \"did you mean\");\n")
        .append("- names that change how the engine process loads code or files are refused,")
        .append(" compared without regard to case. Prefixes: ")
        .append(codeList(EnvPolicy.REFUSED_ENV_PREFIXES, "*"))
        .append(" (the dynamic loaders' preload and search paths; the allocators' debug switches,")
        .append(" which also write files). Names: ")
        .append(codeList(EnvPolicy.REFUSED_ENV_NAMES, ""))
        .append(" (glibc's list of variables `ld.so` strips for setuid programs, the JVM's")
        .append(" option and class-path variables, and what picks a child's program or shell")
        .append(" start-up file). Set such a variable outside the config if you really mean it.\n")
        .append("- any other valid name is passed through unchanged.\n")
        // What this page cannot vouch for: the table is checked here, the Metal engine is not.
        .append("\n## Not tested here\n\n")
        .append("- The Metal engine's own parsing of these flags: no Mac and no Metal engine")
        .append(" library were available. What ran is the table's checks (setup, preflight) and")
        .append(" strata-ref, whose parser is generated from the same table (a parity test).\n")
        .append("- What the env switches do inside the Metal engine (`STRATA_METAL_PROMPT`,")
        .append(" `STRATA_METAL_PROMPT_GEMM`): only their effect on the memory plan and the")
        .append(" refusal rules are tested; the prompt paths they select were not run.\n")
        .append("- The `pc` backend: its flag rules are checked, but the upstream PC engine (and")
        .append(" `STRATA_KV_ROT=1` rotating its int8 pools) was never started here.\n");
    return md.toString();
  }

  /** One Markdown table row of already escaped cells: {@code | a | b | c |}. */
  private static void row(StringBuilder md, String... cells) {
    md.append("| ").append(String.join(" | ", cells)).append(" |\n");
  }

  private static String defaultText(FlagSpec f) {
    String v = f.defaultValue() == null ? "" : "`" + f.defaultValue() + "`";
    String note = f.defaultNote();
    if (v.isEmpty()) {
      return note.isEmpty() ? "none" : note;
    }
    return note.isEmpty() ? v : v + " (" + note + ")";
  }

  private static String codeList(java.util.List<String> items, String suffix) {
    return String.join(", ", items.stream().map(s -> "`" + s + suffix + "`").toList());
  }

  private static String escape(String s) {
    return s.replace("|", "\\|");
  }
}
