package dev.strata.setup;

import dev.strata.cli.Machine;
import dev.strata.engine.Backend;
import dev.strata.engine.gen.Answers;
import dev.strata.engine.gen.Generator;
import dev.strata.engine.gen.Template;
import dev.strata.engine.gen.Templates;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.plan.PlanDefaults;
import dev.strata.engine.plan.PlanText;
import dev.strata.engine.text.TerminalText;
import dev.strata.setup.gen.EngineLibraries;
import dev.strata.setup.gen.Given;
import dev.strata.setup.prompt.Prompter;
import dev.strata.setup.prompt.Question;
import dev.strata.setup.prompt.Style;
import dev.strata.setup.prompt.WizardBack;
import dev.strata.setup.prompt.WizardCancelled;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The interactive half of {@code strata-setup}, its flow: shows what it knows (the machine, the
 * model), asks what the flags did not say — model, context, experts, KV format, engine library — in
 * order with {@code <} going back, and shows the plan until the user says yes. The questions
 * themselves are {@link WizardQuestions}'s, what is shown besides them {@link WizardScreens}'s.
 * Every question is {@link Question} data asked through a {@link Prompter}; the wizard never writes
 * a file (the command does, through {@link SetupFlow#generate}, as for the flags).
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

  private final Prompter p;
  private final Style st;
  private final WizardScreens screens;
  private WizardQuestions q;
  private final Path workingDir;
  private final Path home;
  private final Machine machine;

  // derived from the model and the library guess; recomputed when the model changes
  private HostFacts host;
  private Path libGuess;
  private Backend backend;
  private Template template;
  private GgufModel derivedFor;

  // the answers of the last summary that fit, while a change from it does not (< returns to them)
  private WizardDraft fitting;
  // while the plan does not fit: what would make it fit, offered as the changed answer's default
  private WizardAdvice advice;

  // the KV trade-off shown (measured or upstream's), for the library it would measure with
  private final java.util.Map<String, String> env;
  private final boolean measureFirst;
  private KvOffer offer;

  /**
   * @param env the environment (the cache folder, {@code STRATA_MEASURE_KV_*})
   * @param measureFirst {@code --measure-kv}: measure at the KV question before asking it
   */
  Wizard(
      Prompter prompter,
      Machine machine,
      Path home,
      java.util.Map<String, String> env,
      boolean measureFirst) {
    this.env = env;
    this.measureFirst = measureFirst;
    this.p = prompter;
    this.st = prompter.style();
    this.screens = new WizardScreens(prompter);
    this.machine = machine;
    this.workingDir = machine.workingDir();
    this.home = home;
  }

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
   * @throws dev.strata.engine.StrataException exit 3 when every answer was given and the plan does
   *     not fit (2 when the KV format cannot hold the model)
   */
  Result run(HostFacts host, String hostSource, Given given, Previous previous, Target target) {
    this.host = host;
    this.q = new WizardQuestions(p, host, home, workingDir);
    p.say(st.bold("strata-setup") + " — writes one engine config for this machine and model.");
    p.say(
        st.accent("host:  ") + WizardScreens.hostSummary(host) + st.dim("  (" + hostSource + ")"));
    p.say(
        st.dim(
            "Enter takes the [default]; < (or back) returns to the previous question; Ctrl-C"
                + " stops without writing."));

    WizardDraft d = WizardDraft.of(given);
    if (d.model != null) {
      p.say(st.accent("model: ") + WizardScreens.modelSummary(d.model));
    }
    List<WizardDraft.Step> asked = d.unanswered();

    // Each question in turn; back returns to the one before, keeping the answers after it as the
    // defaults offered when they are asked again. Then the summary, until yes on a plan that fits:
    // no answer is dropped because the plan does not fit (the summary says which answer would make
    // it fit), and < from a summary after a change returns to the answers before it.
    int i = 0;
    fitting = null;
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
      boolean fits = r.generated().plan().fits();
      advice = null;
      String yaml = null;
      if (!fits) {
        if (asked.stream().noneMatch(s -> s.shapesPlan) && fitting == null) {
          r.generated().requireFits(); // throws: exit 3, or 2 for a KV format that cannot hold it
        }
        advice = advice(d, given, r.generated().plan().refusal());
        screens.showDoesNotFit(advice);
      } else {
        p.println("");
        p.say(PlanText.table(r.generated().plan(), p.width()).stripTrailing());
        p.say(st.dim("(what each row means: strata-launch --plan --explain, or docs/PLAN.md)"));
        yaml = dev.strata.engine.config.ConfigCodec.write(r.generated().config());
        if (target.exists()) {
          screens.showDiff(target, yaml);
        }
      }
      WizardDraft.Step change;
      try {
        change = screens.summary(d, target, advice);
      } catch (WizardBack b) {
        advice = null;
        if (fitting != null && !fits) {
          d.set(fitting); // undo the change that did not fit: the summary before it
          fitting = null;
        } else if (asked.isEmpty()) {
          p.say(st.error("  every answer came from the flags: pick one by number to change it"));
        } else {
          fitting = null;
          i = asked.size() - 1; // back into the questions: the last one, and on back from there
        }
        continue;
      }
      if (change == null) {
        if (!fits) {
          p.say(st.error("  it does not fit yet: pick an answer to change first (a number above)"));
          continue;
        }
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
      WizardDraft before = d.copy();
      if (fits) {
        fitting = before;
      }
      try {
        ask(change, d, given, previous, true);
        advice = null;
        askMissing(d, given, previous);
      } catch (WizardBack b) {
        d.set(before); // back from a change (or from what it asked again): the summary again
      }
    }
  }

  /** What does not fit and which answers would make it fit, in the wizard's words. */
  private WizardAdvice advice(WizardDraft d, Given given, String refusal) {
    return WizardAdvice.of(
        d,
        refusal,
        t -> planned(t, given).generated().plan().fits(),
        Generator.minContext(planned(d, given).template()));
  }

  /** The plan and config for the draft (every answer present). */
  private Result planned(WizardDraft d, Given given) {
    derive(d.model, given);
    Backend finalBackend = EngineLibraries.backend(host, d.library, given.backend());
    Template t = finalBackend == backend ? template : Templates.load(finalBackend);
    Generator.Library library = EngineLibraries.describe(d.library, host);
    Answers answers = new Answers(d.context, d.experts, d.kv);
    Generator.Generated generated =
        Generator.plan(
            host, d.model.geometry(), SetupFlow.shardPaths(d.model), answers, library, t);
    return new Result(d.model, answers, library, t, generated);
  }

  /**
   * Asks, in order, every question whose answer a change dropped (a new model's context above its
   * trained one); {@code <} there returns to the summary before the change ({@link WizardBack}).
   */
  private void askMissing(WizardDraft d, Given given, Previous previous) {
    for (WizardDraft.Step s : WizardDraft.Step.values()) {
      if (!d.has(s)) { // asked now, not listed first: an answer may drop a later one
        ask(s, d, given, previous, true);
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
    q.derived(
        backend, template, PlanDefaults.compute(host, model.geometry(), backend, template.env()));
    derivedFor = model;
  }

  /**
   * Asks one question, its default the draft's answer, else the previous config's, else planned.
   */
  private void ask(
      WizardDraft.Step s, WizardDraft d, Given given, Previous previous, boolean canGoBack) {
    switch (s) {
      case MODEL -> {
        Path def =
            d.model != null
                ? d.model.firstShard()
                : previous.model() != null && Files.isRegularFile(previous.model())
                    ? previous.model()
                    : null;
        GgufModel m = q.askModel(s.flag, def, canGoBack);
        p.say(st.accent("model: ") + WizardScreens.modelSummary(m));
        if (d.model != null && !d.model.firstShard().equals(m.firstShard())) {
          for (String note : d.keepWhatStillFits(m)) {
            p.say(st.dim(note));
          }
        }
        d.model = m;
      }
      case CONTEXT -> {
        derive(d.model, given);
        Long def =
            advice != null && advice.context() > 0
                ? Long.valueOf(advice.context()) // what fits, when the answer now does not
                : d.context != null ? d.context : previous.context();
        // the answer now and the last one that fit stay in the list beside the default
        List<Long> alsoShown = new ArrayList<>();
        for (WizardDraft shown : new WizardDraft[] {d, fitting}) {
          if (shown != null && shown.context != null) {
            alsoShown.add(shown.context);
          }
        }
        d.context = q.askContext(s.flag, d.model.geometry(), def, alsoShown, canGoBack);
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
        ExpertsMode def =
            advice != null && advice.stream()
                ? ExpertsMode.STREAM
                : d.experts != null ? d.experts : previous.experts();
        d.experts = q.askExperts(s.flag, d.model.geometry(), d.context, def, canGoBack);
      }
      case KV -> {
        derive(d.model, given);
        KvFormat def =
            advice != null && advice.q4()
                ? KvFormat.Q4_0
                : d.kvAnswered
                    ? d.kv
                    : previous.kvDefault() || previous.kv() == null ? null : previous.kv();
        Path lib = d.library != null ? d.library : libGuess;
        offer = KvOffer.forLibrary(offer, machine, env, host, lib, p::say);
        d.kv = q.askKv(s.flag, d.model, d.context, d.experts, def, canGoBack, offer, measureFirst);
        d.kvAnswered = true;
      }
      case LIBRARY -> {
        derive(d.model, given);
        Path def =
            d.library != null
                ? d.library
                : previous.library() != null ? previous.library() : libGuess;
        Path lib = q.askLibrary(s.flag, def, canGoBack, given.backend());
        d.library = lib;
      }
    }
  }
}
