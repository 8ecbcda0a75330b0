package dev.strata.setup;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.cli.Machine;
import dev.strata.engine.cli.TableValues;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.gen.Answers;
import dev.strata.engine.gen.Generator;
import dev.strata.engine.gen.Template;
import dev.strata.engine.gen.Templates;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.GgufException;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.plan.KvComparison;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanDefaults;
import dev.strata.engine.plan.PlanText;
import dev.strata.engine.text.ByteSize;
import dev.strata.engine.text.TerminalText;
import dev.strata.setup.gen.EngineLibraries;
import dev.strata.setup.gen.Given;
import dev.strata.setup.prompt.Prompter;
import dev.strata.setup.prompt.Question;
import dev.strata.setup.prompt.Style;
import dev.strata.setup.prompt.WizardBack;
import dev.strata.setup.prompt.WizardCancelled;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The interactive half of {@code strata-setup}: shows what it knows (the machine, the model), asks
 * what the flags did not say — model, context, experts, KV format, engine library — and shows the
 * plan. Every question is {@link Question} data asked through a {@link Prompter}; the wizard never
 * writes a file (the command does, after {@link #confirm}).
 */
final class Wizard {

  /** What the wizard settled on. */
  record Result(
      GgufModel model,
      Answers answers,
      Generator.Library library,
      Template template,
      Generator.Generated generated) {}

  /**
   * The answers of the config already at the target, offered as the defaults when the wizard runs
   * over it (each may be null: not in that config, or not readable).
   *
   * @param kvDefault true when that config has no {@code --kv} (the default path was chosen)
   */
  record Previous(
      Path model, Long context, ExpertsMode experts, KvFormat kv, boolean kvDefault, Path library) {
    static final Previous NONE = new Previous(null, null, null, null, false, null);
  }

  /**
   * Where the config goes: {@code path} (null with {@code --print}), what is there now, and whether
   * replacing it needs an explicit yes (a hand-edited config without {@code --force}).
   */
  record Target(Path path, String oldText, boolean exists, boolean owned, boolean force) {
    static Target print() {
      return new Target(null, "", false, true, false);
    }
  }

  /** The questions, in the order asked. */
  enum Step {
    MODEL("model", "--model"),
    CONTEXT("context", "--ctx"),
    EXPERTS("experts", "--experts"),
    KV("kv", "--kv"),
    LIBRARY("library", "--engine-lib");

    final String label;
    final String flag;

    Step(String label, String flag) {
      this.label = label;
      this.flag = flag;
    }
  }

  /** The answers so far; null = not answered (the planned default is offered). */
  private static final class Draft {
    GgufModel model;
    Long context;
    ExpertsMode experts;
    boolean kvAnswered;
    KvFormat kv;
    Path library;

    boolean has(Step s) {
      return switch (s) {
        case MODEL -> model != null;
        case CONTEXT -> context != null;
        case EXPERTS -> experts != null;
        case KV -> kvAnswered;
        case LIBRARY -> library != null;
      };
    }
  }

  private final Prompter p;
  private final Style st;
  private final Path workingDir;
  private final Path home;
  private final Machine machine;

  // derived from the model and the library guess; recomputed when the model changes
  private HostFacts host;
  private Path libGuess;
  private Backend backend;
  private Template template;
  private PlanDefaults defaults;
  private GgufModel derivedFor;

  Wizard(Prompter prompter, Machine machine, Path home) {
    this.p = prompter;
    this.st = prompter.style();
    this.machine = machine;
    this.workingDir = machine.workingDir();
    this.home = home;
  }

  /** Upstream's measured cost of q4_0 (seed), quoted as upstream measurements. */
  static final String Q4_COST =
      "Upstream measured +1.7% perplexity on 1K-token segments on an M4 Pro, a cost that grows"
          + " with context (+8% at 1K to +12% at 8K on the PC engine): opt in when memory"
          + " matters more.";

  /** Without a target: {@code --print}, the config goes to standard output. */
  Result run(HostFacts host, String hostSource, Given given) {
    return run(host, hostSource, given, Previous.NONE, Target.print());
  }

  /**
   * Asks what {@code given} does not say — with {@code <} or {@code back} returning to the previous
   * question, later answers kept where they still make sense — then shows the plan, the diff
   * against the config at the target and a summary where any answer can be changed, and returns
   * once the user says yes.
   *
   * @param previous the config at the target, whose answers are the defaults
   * @throws WizardCancelled on Ctrl-C, Ctrl-D or "no" at the summary
   * @throws StrataException exit 3 when every answer was given and the plan does not fit
   */
  Result run(HostFacts host, String hostSource, Given given, Previous previous, Target target) {
    this.host = host;
    p.say(st.bold("strata-setup") + " — writes one engine config for this machine and model.");
    p.say(st.accent("host:  ") + hostSummary(host) + st.dim("  (" + hostSource + ")"));
    p.say(
        st.dim(
            "Enter takes the [default]; < (or back) returns to the previous question; Ctrl-C"
                + " stops without writing."));

    Draft d = new Draft();
    List<Step> asked = new ArrayList<>();
    if (given.model() != null) {
      d.model = GgufReader.readModel(given.model());
      p.say(st.accent("model: ") + modelSummary(d.model));
    } else {
      asked.add(Step.MODEL);
    }
    if (given.context() != null) {
      d.context = given.context();
    } else {
      asked.add(Step.CONTEXT);
    }
    if (given.experts() != null) {
      d.experts = given.experts();
    } else {
      asked.add(Step.EXPERTS);
    }
    if (given.kv() != null) {
      d.kv = given.kv();
      d.kvAnswered = true;
    } else {
      asked.add(Step.KV);
    }
    if (given.engineLib() != null) {
      d.library = given.engineLib();
    } else {
      asked.add(Step.LIBRARY);
    }

    // Each question in turn; back returns to the one before, keeping the answers after it as the
    // defaults offered when they are asked again.
    int i = 0;
    while (true) {
      while (i < asked.size()) {
        try {
          ask(asked.get(i), d, given, previous, i > 0);
          i++;
        } catch (WizardBack b) {
          i--;
        }
      }
      Result r = planned(d, given);
      if (!r.generated().plan().fits()) {
        p.say(st.error("This does not fit: " + r.generated().plan().refusal()));
        if (!asked.contains(Step.CONTEXT)
            && !asked.contains(Step.EXPERTS)
            && !asked.contains(Step.KV)) {
          throw new StrataException(ExitCodes.PREFLIGHT, r.generated().plan().refusal());
        }
        p.say("Choose again.");
        d.context = asked.contains(Step.CONTEXT) ? null : d.context;
        d.experts = asked.contains(Step.EXPERTS) ? null : d.experts;
        d.kvAnswered = !asked.contains(Step.KV) && d.kvAnswered;
        askMissing(d, given, previous);
        continue;
      }
      p.println("");
      p.say(PlanText.table(r.generated().plan(), p.width()).stripTrailing());
      p.say(st.dim("(what each row means: strata-launch --plan --explain, or docs/PLAN.md)"));
      String yaml = dev.strata.engine.config.ConfigCodec.write(r.generated().config());
      if (target.exists()) {
        showDiff(target, yaml);
      }
      Step change;
      try {
        change = summary(d, target);
      } catch (WizardBack b) {
        if (asked.isEmpty()) {
          p.say(st.error("  every answer came from the flags: pick one by number to change it"));
        } else {
          i = asked.size() - 1; // back into the questions: the last one, and on back from there
        }
        continue;
      }
      if (change == null) {
        if (target.path() != null
            && target.exists()
            && !target.owned()
            && !target.force()
            && !target.oldText().equals(yaml)
            && !p.ask(
                new Question.YesNo(
                    "--force",
                    "Replace it anyway (the old file is kept as "
                        + TerminalText.escape(target.path().getFileName().toString())
                        + ".bak)?",
                    List.of(
                        st.error(
                            TerminalText.escape(target.path().getFileName().toString())
                                + " was edited by hand or not written by strata-setup.")),
                    false))) {
          throw new WizardCancelled("declined");
        }
        return r;
      }
      try {
        ask(change, d, given, previous, true);
      } catch (WizardBack b) {
        continue; // back from a change: the summary again
      }
      askMissing(d, given, previous);
    }
  }

  /** The plan and config for the draft (every answer present). */
  private Result planned(Draft d, Given given) {
    derive(d.model, given);
    Backend finalBackend = EngineLibraries.backend(host, d.library, given.backend());
    Template t = finalBackend == backend ? template : Templates.load(finalBackend);
    Generator.Library library = EngineLibraries.describe(d.library, host);
    Answers answers = new Answers(d.context, d.experts, d.kv);
    Generator.Generated generated =
        Generator.plan(host, d.model.geometry(), shardPaths(d.model), answers, library, t);
    return new Result(d.model, answers, library, t, generated);
  }

  /** Asks, in order, every question whose answer was dropped (no back: the summary follows). */
  private void askMissing(Draft d, Given given, Previous previous) {
    for (Step s : Step.values()) {
      while (!d.has(s)) {
        try {
          ask(s, d, given, previous, false);
        } catch (WizardBack b) {
          // not offered (canGoBack false)
        }
      }
    }
  }

  /** The backend, template and planned defaults for a model (once per model). */
  private void derive(GgufModel model, Given given) {
    if (model == derivedFor) {
      return;
    }
    libGuess =
        given.engineLib() != null
            ? given.engineLib()
            : EngineLibraries.discover(
                    EngineLibraries.backend(host, null, given.backend()),
                    machine.strataHome(),
                    machine.strataRoot(),
                    machine.osName())
                .orElse(null);
    backend = EngineLibraries.backend(host, libGuess, given.backend());
    template = Templates.load(backend);
    defaults = PlanDefaults.compute(host, model.geometry(), backend, template.env());
    derivedFor = model;
  }

  /**
   * Asks one question, its default the draft's answer, else the previous config's, else planned.
   */
  private void ask(Step s, Draft d, Given given, Previous previous, boolean canGoBack) {
    switch (s) {
      case MODEL -> {
        Path def =
            d.model != null
                ? d.model.firstShard()
                : previous.model() != null && Files.isRegularFile(previous.model())
                    ? previous.model()
                    : null;
        GgufModel m = askModel(def, canGoBack);
        p.say(st.accent("model: ") + modelSummary(m));
        if (d.model != null && !d.model.firstShard().equals(m.firstShard())) {
          keepWhatStillFits(d, m);
        }
        d.model = m;
      }
      case CONTEXT -> {
        derive(d.model, given);
        Long def = d.context != null ? d.context : previous.context();
        d.context = askContext(d.model.geometry(), def, canGoBack);
        long trained = d.model.geometry().trainedContext();
        if (trained > 0 && d.context > trained) {
          p.say(
              st.error("  warning: ")
                  + String.format(
                      Locale.ROOT,
                      "%,d tokens is above the model's trained context (%,d): past it, quality"
                          + " is not what the model was trained for.",
                      d.context,
                      trained));
        }
      }
      case EXPERTS -> {
        derive(d.model, given);
        ExpertsMode def = d.experts != null ? d.experts : previous.experts();
        d.experts = askExperts(d.model.geometry(), d.context, def, canGoBack);
      }
      case KV -> {
        derive(d.model, given);
        KvFormat def =
            d.kvAnswered
                ? d.kv
                : previous.kvDefault() || previous.kv() == null ? null : previous.kv();
        d.kv = askKv(d.model.geometry(), d.context, d.experts, def, canGoBack);
        d.kvAnswered = true;
      }
      case LIBRARY -> {
        derive(d.model, given);
        Path def =
            d.library != null
                ? d.library
                : previous.library() != null ? previous.library() : libGuess;
        Path lib = askLibrary(def, canGoBack);
        Backend b = EngineLibraries.backend(host, lib, given.backend());
        if (b != backend) {
          p.say(st.dim("backend: " + b.id() + " (from the library's name), not " + backend.id()));
        }
        d.library = lib;
      }
    }
  }

  /** A new model: later answers are kept where they still make sense for it. */
  private void keepWhatStillFits(Draft d, GgufModel m) {
    ModelGeometry g = m.geometry();
    if (d.context != null && g.trainedContext() > 0 && d.context > g.trainedContext()) {
      p.say(
          st.dim("  context " + d.context + " is above this model's trained context: asked again"));
      d.context = null;
    }
    if (d.kvAnswered && d.kv == KvFormat.Q4_0 && g.headDim() != 256) {
      p.say(st.dim("  q4_0 needs head_dim 256, this model has " + g.headDim() + ": asked again"));
      d.kvAnswered = false;
      d.kv = null;
    }
  }

  /**
   * The answers with a number each; Enter (yes) goes on, a number or name picks the answer to
   * change, no stops.
   *
   * @return the step to ask again, or null to write (or print)
   * @throws WizardCancelled on no
   * @throws WizardBack on {@code <}
   */
  private Step summary(Draft d, Target target) {
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
            "yes", shownTarget == null ? "print the config" : "write " + shownTarget, "yes"));
    options.add(new Question.Option<>("no", "stop, writing nothing", "no"));
    Question.Choice<String> q =
        new Question.Choice<>(
            "--yes",
            shownTarget == null ? "Print it?" : "Write " + shownTarget + "?",
            List.of(
                "",
                st.bold("Summary")
                    + " — Enter "
                    + (target.path() == null ? "prints the config" : "writes it")
                    + "; a number or name changes that answer; < goes back."),
            options,
            options.size() - 2,
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
      default -> Step.valueOf(picked.toUpperCase(Locale.ROOT));
    };
  }

  /** The unified diff old → new of the config at the target, or a line saying it is the same. */
  private void showDiff(Target target, String newText) {
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

  private GgufModel askModel(Path def, boolean canGoBack) {
    GgufModel[] read = new GgufModel[1];
    Path found = def != null ? def : findModel(workingDir);
    Question.PathAnswer q =
        new Question.PathAnswer(
            "--model",
            "Model (first shard, or the folder holding the shards; Tab completes)",
            List.of(),
            found,
            home,
            workingDir,
            path -> {
              try {
                read[0] = GgufReader.readModel(path);
                return null;
              } catch (GgufException e) {
                return e.getMessage();
              } catch (StrataException e) {
                return e.getMessage();
              }
            });
    p.ask(q, canGoBack);
    return read[0];
  }

  /** A model in the working folder, offered as the default; null when there is none. */
  static Path findModel(Path dir) {
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.gguf")) {
      if (!ds.iterator().hasNext()) {
        return null;
      }
    } catch (IOException | RuntimeException e) {
      return null;
    }
    try {
      return GgufReader.readModel(dir).firstShard();
    } catch (StrataException e) {
      return null;
    }
  }

  /**
   * The smallest context the template's own workload fits in: strata-ref's pools hold context + 128
   * cells and must take {@code --prompt-tokens} + {@code --n-predict} (engine/native/src/engine.c
   * refuses less). 1 for templates without a workload (Metal).
   */
  static long minContext(Template t) {
    long prompt = templateValue(t, EngineFlags.PROMPT_TOKENS);
    long predict = templateValue(t, EngineFlags.N_PREDICT);
    return Math.max(1, prompt + predict - KvFormat.EXTRA_CELLS);
  }

  private static long templateValue(Template t, String flag) {
    String v = t.values().get(flag); // the template's args, split by the flag table's rows
    return v == null || TableValues.problem(flag, v) != null ? 0 : Long.parseLong(v);
  }

  private long askContext(ModelGeometry g, Long def, boolean canGoBack) {
    List<Long> sizes = new ArrayList<>();
    for (long c : PlanDefaults.STANDARD_CONTEXTS) {
      if (g.trainedContext() <= 0 || c <= g.trainedContext()) {
        sizes.add(c);
      }
    }
    long chosen = def != null ? def : defaults.context();
    for (long extra : new long[] {defaults.context(), chosen}) {
      if (!sizes.contains(extra)) {
        sizes.add(extra);
      }
    }
    sizes.sort(null);
    List<Question.Option<Long>> options = new ArrayList<>();
    for (long c : sizes) {
      options.add(new Question.Option<>(Long.toString(c), contextDetail(g, c), c));
    }
    long min = minContext(template);
    long[] rounded = {0, 0};
    java.util.function.Function<String, Question.Parsed<Long>> free =
        input -> {
          Question.Parsed<Long> n =
              new Question.Number(
                      "--ctx",
                      "Context",
                      List.of(),
                      1,
                      dev.strata.engine.flags.EngineFlags.MAX_CTX,
                      null)
                  .parse(input);
          if (n instanceof Question.Parsed.Ok<Long> ok && ok.value() < min) {
            rounded[0] = ok.value();
            rounded[1] = min;
            return new Question.Parsed.Ok<>(min);
          }
          if (n instanceof Question.Parsed.Bad<Long> bad) {
            return new Question.Parsed.Bad<>(
                bad.reason()
                    + " (type 1-"
                    + options.size()
                    + ", a size from the list, or any size"
                    + " in tokens such as 5000 or 48k)");
          }
          return n;
        };
    List<String> notes =
        List.of(
            "",
            st.bold("Context")
                + " — tokens the engine keeps; each size with its KV cache under the default"
                + " format and under q4_0. Default: the largest that fits with margin. Any other"
                + " size in tokens works too (5000, 48k).");
    long c =
        p.ask(
            new Question.Choice<>("--ctx", "Context", notes, options, sizes.indexOf(chosen), free),
            canGoBack);
    if (rounded[1] != 0 && c == rounded[1]) {
      p.say(
          st.dim(
              String.format(
                  Locale.ROOT,
                  "  %,d rounded up to %,d: the %s engine's workload (--prompt-tokens +"
                      + " --n-predict) needs at least that",
                  rounded[0],
                  rounded[1],
                  template.backend().id())));
    }
    if (!sizes.contains(c)) {
      p.say(st.dim("  context " + c + ": " + contextDetail(g, c)));
    }
    return c;
  }

  private String contextDetail(ModelGeometry g, long c) {
    KvComparison cmp = KvComparison.at(host, g, c, backend, template.env());
    boolean fits =
        MemoryPlan.compute(
                host, g, c, ExpertsMode.STREAM, cmp.defaultFormat(), backend, template.env())
            .fits();
    return "KV "
        + cmp.defaultFormat().flagName()
        + " "
        + size(cmp.defaultKvBytes())
        + (cmp.q4Available() ? " · q4_0 " + size(cmp.q4KvBytes()) : "")
        + (fits ? "" : "  (does not fit)");
  }

  private ExpertsMode askExperts(ModelGeometry g, long ctx, ExpertsMode chosen, boolean back) {
    Backend b = template.backend();
    MemoryPlan stream =
        MemoryPlan.compute(host, g, ctx, ExpertsMode.STREAM, defaults.pools(), b, template.env());
    MemoryPlan resident =
        MemoryPlan.compute(host, g, ctx, ExpertsMode.RESIDENT, defaults.pools(), b, template.env());
    ExpertsMode def =
        chosen != null
            ? chosen
            : PlanDefaults.residentFitsWithMargin(resident)
                ? ExpertsMode.RESIDENT
                : ExpertsMode.STREAM;
    String streamDetail =
        String.format(
            Locale.ROOT,
            "experts stay on the SSD; an arena of %,d of %,d slots (%s) keeps the hot ones",
            stream.arena().slots(),
            stream.arena().modelSlots(),
            size(stream.arena().bytes()));
    String residentDetail =
        "every expert in memory ("
            + size(resident.arena().bytes())
            + ")"
            + (resident.fits() ? "" : " — does not fit here");
    List<Question.Option<ExpertsMode>> options =
        List.of(
            new Question.Option<>("stream", streamDetail, ExpertsMode.STREAM),
            new Question.Option<>("resident", residentDetail, ExpertsMode.RESIDENT));
    return p.ask(
        new Question.Choice<>(
            "--experts",
            "Experts",
            List.of(
                "",
                st.bold("Experts")
                    + String.format(
                        Locale.ROOT, " — where the MoE experts live at context %,d.", ctx)),
            options,
            def == ExpertsMode.STREAM ? 0 : 1),
        back);
  }

  private KvFormat askKv(
      ModelGeometry g, long ctx, ExpertsMode experts, KvFormat chosen, boolean back) {
    KvComparison cmp = KvComparison.at(host, g, ctx, template.backend(), template.env());
    if (!cmp.q4Available()) {
      p.say(
          st.dim(
              "KV format: the default path ("
                  + cmp.defaultFormat().flagName()
                  + "); q4_0 needs head_dim 256, this model has "
                  + g.headDim()));
      return null;
    }
    List<String> notes = new ArrayList<>();
    notes.add("");
    notes.add(
        st.bold("KV cache format")
            + String.format(
                Locale.ROOT,
                " — at %,d tokens q4_0 saves %s (%s → %s)%s.",
                ctx,
                size(cmp.bytesSaved()),
                size(cmp.defaultKvBytes()),
                size(cmp.q4KvBytes()),
                kvGain(cmp, experts)));
    notes.add(Q4_COST);
    long defCell = cmp.defaultFormat().cellBytes(g.kvHeads(), g.headDim());
    long q4Cell = KvFormat.Q4_0.cellBytes(g.kvHeads(), g.headDim());
    List<Question.Option<java.util.Optional<KvFormat>>> options = new ArrayList<>();
    options.add(
        new Question.Option<>(
            "default",
            "no --kv: the engine's default path ("
                + cmp.defaultFormat().flagName()
                + " pools, "
                + String.format(Locale.ROOT, "%,d", defCell)
                + " B per cell per layer)",
            java.util.Optional.empty()));
    options.add(
        new Question.Option<>(
            "q4_0",
            "--kv q4_0: FWHT-256 + 4-bit blocks, " + q4Cell + " B per cell per layer",
            java.util.Optional.of(KvFormat.Q4_0)));
    return p.ask(
            new Question.Choice<>(
                "--kv", "KV format", notes, options, chosen == KvFormat.Q4_0 ? 1 : 0),
            back)
        .orElse(null);
  }

  /**
   * What the saved bytes buy, for the chosen experts mode: more stream-arena slots when streaming;
   * with every expert resident there is no arena to grow, the bytes stay free.
   */
  static String kvGain(KvComparison cmp, ExpertsMode experts) {
    if (experts == ExpertsMode.RESIDENT) {
      return "; with every expert resident that memory simply stays free (no arena to grow)";
    }
    return cmp.arenaSlotsWon() > 0
        ? String.format(
            Locale.ROOT, " and wins %,d more expert slots in the stream arena", cmp.arenaSlotsWon())
        : " (the stream arena already holds every expert here: it wins no slots)";
  }

  private Path askLibrary(Path guess, boolean canGoBack) {
    Question.PathAnswer q =
        new Question.PathAnswer(
            "--engine-lib",
            "Engine library (Tab completes)",
            List.of(
                "",
                st.bold("Engine library")
                    + " — the engine the launcher loads"
                    + (backend == Backend.METAL
                        ? " (the Metal engine is not part of this toolkit: it comes from the"
                            + " Strata engine's own build, libstrata.dylib)."
                        : ".")),
            guess,
            home,
            workingDir,
            lib -> EngineLibraries.problem(lib, host)); // launch's own checks, at once
    return p.ask(q, canGoBack);
  }

  static List<String> shardPaths(GgufModel model) {
    List<String> out = new ArrayList<>();
    for (GgufModel.Shard s : model.shards()) {
      out.add(s.path().toAbsolutePath().normalize().toString());
    }
    return out;
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

  /** Bytes for people, in the one unit system of every output (binary, IEC: KiB, MiB, GiB). */
  static String size(long bytes) {
    return ByteSize.iec(bytes);
  }
}
