package dev.strata.setup;

import dev.strata.engine.Backend;
import dev.strata.engine.StrataException;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.gen.Generator;
import dev.strata.engine.gen.Template;
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
import dev.strata.engine.plan.PlanRequest;
import dev.strata.engine.text.ByteSize;
import dev.strata.engine.text.TerminalText;
import dev.strata.setup.gen.EngineLibraries;
import dev.strata.setup.prompt.Prompter;
import dev.strata.setup.prompt.Question;
import dev.strata.setup.prompt.Style;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The wizard's questions, one method per answer ({@link Wizard} decides which to ask and in what
 * order): each builds its {@link Question} with the options and the figures that help choose — the
 * KV cache of each context, the arena of each experts mode, what q4_0 saves — and asks it through
 * the {@link Prompter}, its id the {@code id} given (the step's option, {@link WizardDraft.Step}).
 * The figures come from the memory plan for the model and the backend {@link #derived} last set.
 */
final class WizardQuestions {
  private final Prompter p;
  private final Style st;
  private final HostFacts host;
  private final Path home;
  private final Path workingDir;

  // what the model and the library guess decide: set by the wizard once per model
  private Backend backend;
  private Template template;
  private PlanDefaults defaults;

  WizardQuestions(Prompter p, HostFacts host, Path home, Path workingDir) {
    this.p = p;
    this.st = p.style();
    this.host = host;
    this.home = home;
    this.workingDir = workingDir;
  }

  /** The backend, its template and the planned defaults the questions' figures are for. */
  void derived(Backend backend, Template template, PlanDefaults defaults) {
    this.backend = backend;
    this.template = template;
    this.defaults = defaults;
  }

  GgufModel askModel(String id, Path def, boolean canGoBack) {
    GgufModel[] read = new GgufModel[1];
    Path found = def != null ? def : findModel(workingDir);
    Question.PathAnswer q =
        new Question.PathAnswer(
            id,
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
   * @param def the answer offered as the default (null: the planned default)
   * @param alsoShown sizes listed besides the standard ones and the default (the answer now and the
   *     last one that fit, while the plan does not)
   */
  long askContext(String id, ModelGeometry g, Long def, List<Long> alsoShown, boolean back) {
    List<Long> sizes = new ArrayList<>();
    for (long c : PlanDefaults.STANDARD_CONTEXTS) {
      if (g.trainedContext() <= 0 || c <= g.trainedContext()) {
        sizes.add(c);
      }
    }
    long chosen = def != null ? def : defaults.context();
    List<Long> extras = new ArrayList<>(alsoShown);
    extras.add(defaults.context());
    extras.add(chosen);
    for (long extra : extras) {
      if (!sizes.contains(extra)) {
        sizes.add(extra);
      }
    }
    sizes.sort(null);
    List<Question.Option<Long>> options = new ArrayList<>();
    for (long c : sizes) {
      options.add(new Question.Option<>(Long.toString(c), contextDetail(g, c), c));
    }
    long min = Generator.minContext(template);
    long[] rounded = {0, 0};
    java.util.function.Function<String, Question.Parsed<Long>> free =
        input -> {
          Question.Parsed<Long> n =
              new Question.Number(id, "Context", List.of(), 1, EngineFlags.MAX_CTX, null)
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
            new Question.Choice<>(id, "Context", notes, options, sizes.indexOf(chosen), free),
            back);
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
                PlanRequest.of(host, g, backend)
                    .withContext(c)
                    .withExperts(ExpertsMode.STREAM)
                    .withPools(cmp.defaultFormat())
                    .withEnv(template.env()))
            .fits();
    return "KV "
        + cmp.defaultFormat().flagName()
        + " "
        + ByteSize.iec(cmp.defaultKvBytes())
        + (cmp.q4Available() ? " · q4_0 " + ByteSize.iec(cmp.q4KvBytes()) : "")
        + (fits ? "" : "  (does not fit)");
  }

  ExpertsMode askExperts(String id, ModelGeometry g, long ctx, ExpertsMode c, boolean back) {
    Backend b = template.backend();
    PlanRequest request =
        PlanRequest.of(host, g, b)
            .withContext(ctx)
            .withPools(defaults.pools())
            .withEnv(template.env());
    MemoryPlan stream = MemoryPlan.compute(request.withExperts(ExpertsMode.STREAM));
    MemoryPlan resident = MemoryPlan.compute(request.withExperts(ExpertsMode.RESIDENT));
    ExpertsMode def =
        c != null
            ? c
            : PlanDefaults.residentFitsWithMargin(resident)
                ? ExpertsMode.RESIDENT
                : ExpertsMode.STREAM;
    if (g.expertSlots() == 0) {
      return def; // a dense model: no experts to place, not asked (as without a terminal)
    }
    String streamDetail =
        String.format(
            Locale.ROOT,
            "experts stay on the SSD; an arena of %,d of %,d slots (%s) keeps the hot ones",
            stream.arena().slots(),
            stream.arena().modelSlots(),
            ByteSize.iec(stream.arena().bytes()));
    String residentDetail =
        "every expert in memory ("
            + ByteSize.iec(resident.arena().bytes())
            + ")"
            + (resident.fits() ? "" : " — does not fit here");
    List<Question.Option<ExpertsMode>> options =
        List.of(
            new Question.Option<>("stream", streamDetail, ExpertsMode.STREAM),
            new Question.Option<>("resident", residentDetail, ExpertsMode.RESIDENT));
    return p.ask(
        new Question.Choice<>(
            id,
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

  /** The KV question's answers: a format, or measuring this model first. */
  private enum KvPick {
    DEFAULT,
    Q4_0,
    MEASURE
  }

  /**
   * The KV-format question: what q4_0 saves at this context, its cost — this model's measured
   * figures ({@link KvOffer}), else upstream's table — and, when a measurement can run here and
   * none is known, a "measure" answer that measures and asks again (the answer and the config are
   * what they would have been: a measurement changes only what is shown).
   *
   * @param measureFirst {@code --measure-kv}: measure before asking, unless already measured
   * @return the format, or null for the default path (no {@code --kv})
   */
  KvFormat askKv(
      String id,
      GgufModel model,
      long ctx,
      ExpertsMode experts,
      KvFormat chosen,
      boolean back,
      KvOffer offer,
      boolean measureFirst) {
    ModelGeometry g = model.geometry();
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
    if (measureFirst) {
      offer.measureFirst(model, cmp.defaultFormat());
    }
    while (true) {
      List<String> notes = new ArrayList<>();
      notes.add("");
      notes.add(
          st.bold("KV cache format")
              + String.format(
                  Locale.ROOT,
                  " — at %,d tokens q4_0 saves %s (%s → %s)%s.",
                  ctx,
                  ByteSize.iec(cmp.bytesSaved()),
                  ByteSize.iec(cmp.defaultKvBytes()),
                  ByteSize.iec(cmp.q4KvBytes()),
                  kvGain(cmp, experts)));
      notes.add(offer.tradeOff(model, cmp.defaultFormat()));
      long defCell = cmp.defaultFormat().cellBytes(g.kvHeads(), g.headDim());
      long q4Cell = KvFormat.Q4_0.cellBytes(g.kvHeads(), g.headDim());
      List<Question.Option<KvPick>> options = new ArrayList<>();
      options.add(
          new Question.Option<>(
              "default",
              "no --kv: the engine's default path ("
                  + cmp.defaultFormat().flagName()
                  + " pools, "
                  + String.format(Locale.ROOT, "%,d", defCell)
                  + " B per cell per layer)",
              KvPick.DEFAULT));
      options.add(
          new Question.Option<>(
              "q4_0",
              "--kv q4_0: FWHT-256 + 4-bit blocks, " + q4Cell + " B per cell per layer",
              KvPick.Q4_0));
      if (offer.canMeasure() && offer.measured(model).isEmpty()) {
        options.add(
            new Question.Option<>(
                "measure", offer.offerDetail(model, cmp.defaultFormat()), KvPick.MEASURE));
      }
      KvPick pick =
          p.ask(
              new Question.Choice<>(
                  id, "KV format", notes, options, chosen == KvFormat.Q4_0 ? 1 : 0),
              back);
      switch (pick) {
        case DEFAULT -> {
          return null;
        }
        case Q4_0 -> {
          return KvFormat.Q4_0;
        }
        case MEASURE -> offer.measureNow(model, cmp.defaultFormat());
      }
    }
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

  /**
   * The engine library, checked as a launch checks it; says when it is not on this machine and when
   * its name picks another backend than {@code requested} (or the derived one).
   */
  Path askLibrary(String id, Path guess, boolean canGoBack, Backend requested) {
    Question.PathAnswer q =
        new Question.PathAnswer(
            id,
            "Engine library (Tab completes)",
            List.of(
                "",
                st.bold("Engine library")
                    + " — the engine the launcher loads"
                    + (backend == Backend.METAL
                        ? " (the Metal engine is not part of this toolkit: it comes from the"
                            + " Strata engine's own build, libstrata.dylib)."
                        : ".")
                    + " For another machine, its path there: it need not exist here (the"
                    + " config then pins no sha256)."),
            guess,
            home,
            workingDir,
            lib -> EngineLibraries.problem(lib, host)); // launch's own checks, at once
    Path lib = p.ask(q, canGoBack);
    if (EngineLibraries.absentHere(lib)) {
      p.say(
          st.dim(
              "  "
                  + TerminalText.escape(lib.toString())
                  + " is not on this machine: the config names it without a sha256 (right"
                  + " for a config for another Mac; a launch here would not find it)"));
    }
    Backend b = EngineLibraries.backend(host, lib, requested);
    if (b != backend) {
      p.say(st.dim("backend: " + b.id() + " (from the library's name), not " + backend.id()));
    }
    return lib;
  }
}
