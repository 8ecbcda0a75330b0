package dev.strata.setup;

import dev.strata.engine.host.HostFacts;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.text.ByteSize;
import dev.strata.engine.text.TerminalText;
import dev.strata.setup.prompt.Prompter;
import dev.strata.setup.prompt.Question;
import dev.strata.setup.prompt.Style;
import dev.strata.setup.prompt.WizardBack;
import dev.strata.setup.prompt.WizardCancelled;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the wizard shows that is not a question: the one-line host and model summaries, the diff
 * against the config at the target, and the closing summary where any answer can be picked to
 * change. Everything from a file or the user goes through {@link TerminalText#escape}.
 */
final class WizardScreens {
  private final Prompter p;
  private final Style st;

  WizardScreens(Prompter p) {
    this.p = p;
    this.st = p.style();
  }

  /**
   * The answers with a number each; Enter (yes) goes on, a number or name picks the answer to
   * change, no stops. When the plan does not fit ({@code advice} not null) the numbers stay the
   * same, yes says it does not fit yet and Enter picks the answer the advice names first.
   *
   * @return the step to ask again, or null to write (or print)
   * @throws WizardCancelled on no
   * @throws WizardBack on {@code <}
   */
  WizardDraft.Step summary(WizardDraft d, Wizard.Target target, WizardAdvice advice) {
    List<Question.Option<String>> options = new ArrayList<>();
    options.add(
        new Question.Option<>(
            "model", TerminalText.escape(d.model.firstShard().toString()), "model"));
    options.add(
        new Question.Option<>(
            "context", String.format(Locale.ROOT, "%,d tokens", d.context), "context"));
    options.add(new Question.Option<>("experts", d.experts.id(), "experts"));
    options.add(
        new Question.Option<>(
            "kv", d.kv == null ? "default (no --kv)" : "--kv " + d.kv.flagName(), "kv"));
    options.add(
        new Question.Option<>("library", TerminalText.escape(d.library.toString()), "library"));
    String shownTarget =
        target.path() == null ? null : TerminalText.escape(target.path().toString());
    options.add(
        new Question.Option<>(
            "yes",
            advice != null
                ? "does not fit yet: change an answer above first"
                : shownTarget == null ? "print the config" : "write " + shownTarget,
            "yes"));
    options.add(new Question.Option<>("no", "stop, writing nothing", "no"));
    int def =
        advice == null
            ? options.size() - 2
            : advice.first() == null ? options.size() - 1 : advice.first().ordinal();
    Question.Choice<String> q =
        new Question.Choice<>(
            "--yes",
            advice != null
                ? "Change which answer?"
                : shownTarget == null ? "Print it?" : "Write " + shownTarget + "?",
            List.of(
                "",
                st.bold("Summary")
                    + " — Enter "
                    + (advice != null
                        ? "changes the answer marked (default)"
                        : target.path() == null ? "prints the config" : "writes it")
                    + "; a number or name changes that answer; < goes back."),
            options,
            def,
            input ->
                switch (input.toLowerCase(Locale.ROOT)) {
                  case "y", "write" -> new Question.Parsed.Ok<>("yes");
                  case "n", "quit" -> new Question.Parsed.Ok<>("no");
                  default ->
                      new Question.Parsed.Bad<>(
                          "'"
                              + input
                              + "' is not one of the options: type 1-"
                              + options.size()
                              + ", a name (model, context, experts, kv, library), yes or no");
                });
    String picked = p.ask(q, true);
    return switch (picked) {
      case "yes" -> null;
      case "no" -> throw new WizardCancelled("declined");
      default -> WizardDraft.Step.valueOf(picked.toUpperCase(Locale.ROOT));
    };
  }

  /** What does not fit, and the answers that would make it fit. */
  void showDoesNotFit(WizardAdvice advice) {
    p.println("");
    p.say(st.error("This does not fit: ") + advice.figures());
    if (advice.remedies().isEmpty()) {
      p.say("No single answer the wizard asks makes it fit here: change the model, or stop.");
    } else {
      p.say("It fits with one of these answers changed (pick its number in the summary):");
      for (String remedy : advice.remedies()) {
        p.say("  " + remedy);
      }
    }
  }

  /** The unified diff old → new of the config at the target, or a line saying it is the same. */
  void showDiff(Wizard.Target target, String newText) {
    // everything shown goes through the one escape: a hand-edited config may hold control chars
    String shown = TerminalText.escape(target.path().toString());
    if (target.oldText().equals(newText)) {
      p.say(shown + " already holds exactly this config.");
      return;
    }
    p.println("");
    p.say(st.bold(shown + " exists; the changes, old → new:"));
    for (String line :
        dev.strata.engine.write.UnifiedDiff.diff(
                target.path() + " (now)", target.oldText(), target.path() + " (new)", newText)
            .split("\n")) {
      line = TerminalText.escape(line);
      p.println(
          line.startsWith("+") && !line.startsWith("+++")
              ? st.good(line)
              : line.startsWith("-") && !line.startsWith("---") ? st.error(line) : line);
    }
  }

  static String hostSummary(HostFacts h) {
    StringBuilder sb = new StringBuilder();
    sb.append(h.chip()).append(" (").append(h.os()).append(' ').append(h.osVersion()).append("), ");
    sb.append(h.cpuCores()).append(" cores");
    if (h.efficiencyCores() > 0) {
      sb.append(" (")
          .append(h.perfCores())
          .append(" P + ")
          .append(h.efficiencyCores())
          .append(" E)");
    }
    sb.append(", ").append(ByteSize.iec(h.memoryBytes()));
    if (h.isMac()) {
      sb.append(", GPU family ").append(h.gpuFamily());
      sb.append(", Metal 4 ").append(h.metal4() ? "yes" : "no");
      sb.append(", k4 ").append(h.k4() ? "yes" : "no");
    }
    return sb.toString();
  }

  static String modelSummary(GgufModel m) {
    ModelGeometry g = m.geometry();
    List<Path> files = new ArrayList<>();
    m.shards().forEach(sh -> files.add(sh.path()));
    return String.format(
        Locale.ROOT,
        "%s — %s, %d shard%s, %s on disk; %d QSA layers, %d experts (%d per token), trained"
            + " context %,d",
        m.firstShard(),
        g.architecture(),
        m.shards().size(),
        m.shards().size() == 1 ? "" : "s",
        dev.strata.engine.model.DiskUsage.of(files).describe(),
        g.qsaLayerCount(),
        g.experts(),
        g.expertsUsed(),
        g.trainedContext());
  }
}
