package dev.strata.launcher;

import static dev.strata.engine.text.TerminalText.escape;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.strata.engine.plan.PlanItems;
import dev.strata.engine.plan.PlanText;
import dev.strata.engine.text.Json;
import dev.strata.engine.text.Wrap;
import dev.strata.launcher.preflight.Preflight;
import dev.strata.launcher.run.RunSummary;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** What {@code strata-launch} prints: the plan, the dry run, warnings, the start line. */
final class Reports {

  private Reports() {}

  static void printWarnings(Preflight.Report r, PrintWriter err) {
    for (Preflight.Check c : r.warnings()) {
      err.println("strata-launch: warning: " + escape(c.detail()));
    }
    err.flush();
  }

  /**
   * {@code --plan}: the table wrapped to {@code width} columns (Io#width: the terminal's, or whole
   * lines into a pipe; warnings on stderr), or the plan's JSON.
   */
  static void printPlan(
      Preflight.Report r, boolean json, int width, PrintWriter out, PrintWriter err) {
    if (json) {
      out.println(PlanText.json(r.plan()).strip());
    } else {
      printWarnings(r, err);
      out.print(ensureNewline(PlanText.table(r.plan(), width)));
      printItems(r, width, out);
    }
    out.flush();
  }

  /**
   * The engine's own items ({@code strata_engine_check}'s {@code plan:} lines) beside the
   * launcher's plan ({@link PlanItems}): per item both sizes and whether they agree; the prose
   * lines wrapped to {@code width}.
   */
  static void printItems(Preflight.Report r, int width, PrintWriter out) {
    Preflight.EngineVerdict v = r.engine();
    if (v == null) {
      if (r.engineNote() != null) {
        out.println();
        out.print(Wrap.text("engine items: " + r.engineNote(), width));
      }
      return;
    }
    out.println();
    if (!v.checked()) {
      out.print(
          Wrap.text(
              "engine items: "
                  + v.name()
                  + " (ABI "
                  + v.abi()
                  + ") has no strata_engine_check; only the launcher's plan above",
              width));
      return;
    }
    if (v.code() != 0 && v.planLines().isEmpty()) {
      // a refusal carries no items: a row per item "not allocated" would read as an engine that
      // runs this config without its weights or KV
      out.print(
          Wrap.text(
              "engine items: none: "
                  + v.name()
                  + " refuses this config (strata_engine_check returned "
                  + v.code()
                  + "; standard error says why): only the launcher's plan above",
              width));
      return;
    }
    out.print(
        Wrap.text(
            "engine items: what " + v.name() + " itself would allocate, beside the plan", width));
    Map<String, String> engine = PlanItems.byName(v.planLines());
    Map<String, String> launcher =
        r.plan() != null ? PlanItems.byName(PlanItems.lines(r.plan())) : Map.of();
    Set<String> names = new LinkedHashSet<>(engine.keySet());
    names.addAll(launcher.keySet());
    out.printf(Locale.ROOT, "  %-14s %15s %15s  %s%n", "item", "engine B", "plan B", "");
    for (String n : names) {
      String e = engine.get(n);
      String l = launcher.get(n);
      String verdict =
          e == null
              ? "not allocated by this engine"
              : l == null ? "engine only" : e.equals(l) ? "same" : "DIFFERENT: " + e + " vs " + l;
      String row =
          String.format(
              Locale.ROOT,
              "  %-14s %15s %15s",
              n,
              e == null ? "-" : Long.toString(PlanItems.bytes(e)),
              l == null ? "-" : Long.toString(PlanItems.bytes(l)));
      // the verdict beside the sizes when the width has room, else on the next lines, indented
      out.print(
          row.length() + 2 + verdict.length() <= width
              ? row + "  " + verdict + "\n"
              : row + "\n" + Wrap.text("      " + verdict, width));
    }
  }

  /**
   * {@code --dry-run}: argv, env, the checks, the plan (wrapped to {@code width}), the engine's
   * items; nothing run.
   */
  static void printDryRun(
      Preflight.Report r,
      boolean isolate,
      boolean json,
      int width,
      PrintWriter out,
      PrintWriter err) {
    if (json) {
      out.println(dryRunJson(r, isolate));
      out.flush();
      return;
    }
    out.println("config:  " + escape(r.configPath().toString()));
    out.println(
        "engine:  "
            + escape(
                String.valueOf(r.library() != null ? r.library() : r.config().engine().library()))
            + " ("
            + r.backend().id()
            + (isolate ? ", isolated in a child process" : ", in this process")
            + ")");
    out.println("args:    " + escape(shellLine(r.args())));
    out.println("env:     " + (r.env().isEmpty() ? "(none)" : escape(envLine(r.env()))));
    out.println("checks:");
    for (Preflight.Check c : r.checks()) {
      out.printf(
          Locale.ROOT,
          "  %-8s %-8s %s%n",
          c.status().name().toLowerCase(Locale.ROOT),
          c.name(),
          escape(c.detail()));
    }
    if (r.plan() != null) {
      out.println();
      out.print(ensureNewline(PlanText.table(r.plan(), width)));
    }
    printItems(r, width, out);
    out.println();
    out.println(
        (r.refused()
                ? "dry run: the launch would be refused (exit " + r.refusal().exitCode() + ")"
                : "dry run: the launch would start")
            + "; "
            + verdictSource(r));
    out.flush();
    if (r.refused()) {
      err.println("strata-launch: " + escape(r.refusal().getMessage()));
      err.flush();
    }
  }

  /** Whose rules gave the dry run's verdict. */
  static String verdictSource(Preflight.Report r) {
    Preflight.EngineVerdict v = r.engine();
    if (v == null) {
      return r.refused() || r.engineNote() == null
          ? "refused before the engine was asked; nothing run"
          : "verdict from the launcher's own rules (the unpinned library was not loaded); nothing"
              + " loaded or run";
    }
    if (!v.checked()) {
      return "verdict from the launcher's own rules (the ABI "
          + v.abi()
          + " engine has no strata_engine_check); nothing run";
    }
    return "verdict from the engine's own check (strata_engine_check); nothing allocated or run";
  }

  /** The line printed before the engine starts, then the plan (wrapped to {@code width}). */
  static void printStart(Preflight.Report r, boolean isolate, int width, PrintWriter out) {
    out.println(
        "strata-launch: "
            + escape(r.configPath().toString())
            + " → "
            + escape(String.valueOf(r.library()))
            + (isolate ? " (isolated: child process)" : ""));
    out.print(ensureNewline(PlanText.table(r.plan(), width)));
    out.flush();
  }

  /**
   * A run as one JSON document, no newline: {@code config, backend, library, isolate, exit_code},
   * then what the engine logged ({@code alloc[{item, bytes}]}, {@code kv}, {@code decode}, {@code
   * arena}, {@code memory}: {@link RunSummary}), the decode's reads beside the plan's expectation
   * ({@code reads}: {@link ReadsReport}), then the launcher's {@code plan}.
   */
  static String runJson(Preflight.Report r, boolean isolate, int exitCode, RunSummary summary) {
    return runJson(r, isolate, exitCode, summary, null);
  }

  /**
   * As {@link #runJson(Preflight.Report, boolean, int, RunSummary)}, {@code more} written after the
   * engine's fields (a generation's; null: none).
   */
  static String runJson(
      Preflight.Report r, boolean isolate, int exitCode, RunSummary summary, Json.Body more) {
    return Json.write(
        false,
        g -> {
          g.writeStartObject();
          writeLaunchHead(g, r, isolate);
          g.writeNumberField("exit_code", exitCode);
          summary.writeFields(g);
          ReadsReport reads = ReadsReport.of(r.plan(), summary);
          if (reads != null) {
            reads.writeJson(g);
          }
          if (more != null) {
            more.write(g);
          }
          if (r.plan() != null) {
            g.writeFieldName("plan");
            PlanText.writeJson(r.plan(), g);
          }
          g.writeEndObject();
        });
  }

  /** {@code config, backend, library, isolate}: how a run's and a dry run's JSON begin. */
  private static void writeLaunchHead(JsonGenerator g, Preflight.Report r, boolean isolate)
      throws IOException {
    g.writeStringField("config", r.configPath().toString());
    g.writeStringField("backend", r.backend().id());
    g.writeStringField(
        "library", r.library() != null ? r.library().toString() : r.config().engine().library());
    g.writeBooleanField("isolate", isolate);
  }

  /** The dry run as one JSON document (the plan written into it, not re-parsed), no newline. */
  static String dryRunJson(Preflight.Report r, boolean isolate) {
    return Json.write(
            false,
            g -> {
              g.writeStartObject();
              writeLaunchHead(g, r, isolate);
              Json.strings(g, "args", r.args());
              g.writeObjectFieldStart("env");
              for (Map.Entry<String, String> e : r.env().entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
              }
              g.writeEndObject();
              g.writeArrayFieldStart("checks");
              for (Preflight.Check c : r.checks()) {
                g.writeStartObject();
                g.writeStringField("check", c.name());
                g.writeStringField("status", c.status().name().toLowerCase(Locale.ROOT));
                g.writeStringField("detail", c.detail());
                g.writeEndObject();
              }
              g.writeEndArray();
              g.writeFieldName("plan");
              if (r.plan() != null) {
                PlanText.writeJson(r.plan(), g);
              } else {
                g.writeNull();
              }
              Preflight.EngineVerdict v = r.engine();
              g.writeFieldName("engine");
              if (v == null) {
                g.writeNull();
              } else {
                g.writeStartObject();
                g.writeStringField("name", v.name());
                g.writeNumberField("abi", v.abi());
                g.writeBooleanField("checked", v.checked());
                g.writeNumberField("code", v.code());
                g.writeStringField("first_error", v.firstError());
                Json.strings(g, "plan", v.planLines());
                g.writeEndObject();
              }
              Json.strings(
                  g, "launcher_items", r.plan() == null ? List.of() : PlanItems.lines(r.plan()));
              g.writeStringField(
                  "verdict_from",
                  v == null
                      ? (r.refused() || r.engineNote() == null ? "preflight" : "launcher")
                      : v.checked() ? "engine" : "launcher");
              g.writeBooleanField("would_start", !r.refused());
              g.writeNumberField("exit_code", r.refused() ? r.refusal().exitCode() : 0);
              g.writeStringField("refusal", r.refused() ? r.refusal().getMessage() : null);
              g.writeEndObject();
            })
        .strip();
  }

  /** The args as one line a POSIX shell reads back the same. */
  static String shellLine(List<String> args) {
    StringBuilder s = new StringBuilder();
    for (String a : args) {
      if (!s.isEmpty()) {
        s.append(' ');
      }
      s.append(quote(a));
    }
    return s.toString();
  }

  private static String envLine(Map<String, String> env) {
    StringBuilder s = new StringBuilder();
    env.forEach((k, v) -> s.append(s.isEmpty() ? "" : " ").append(k).append('=').append(quote(v)));
    return s.toString();
  }

  static String quote(String a) {
    return dev.strata.engine.text.ShellWords.quote(a);
  }

  private static String ensureNewline(String s) {
    return s.endsWith("\n") ? s : s + "\n";
  }
}
