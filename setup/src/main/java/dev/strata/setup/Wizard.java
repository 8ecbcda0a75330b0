package dev.strata.setup;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.cli.Machine;
import dev.strata.engine.gen.Answers;
import dev.strata.engine.gen.Generator;
import dev.strata.engine.gen.Template;
import dev.strata.engine.gen.Templates;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.Backend;
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
import dev.strata.engine.text.TerminalText;
import dev.strata.setup.gen.EngineLibraries;
import dev.strata.setup.gen.Given;
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
 * The interactive half of {@code strata-setup}: shows what it knows (the machine, the model), asks
 * what the flags did not say — model, context, experts, KV format, engine library — and shows the
 * plan. Every question is {@link Question} data asked through a {@link Prompter}; the wizard never
 * writes a file (the command does, after {@link #confirm}).
 */
final class Wizard {

  /**
   * What the wizard settled on: the answers only; {@link SetupFlow#generate} makes the config from
   * them, as it does from flags.
   *
   * @param model the model read
   * @param answers context, experts mode, KV format
   * @param library the engine library's path
   */
  record Result(GgufModel model, Answers answers, Path library) {}

  private final Prompter p;
  private final Style st;
  private final Path workingDir;
  private final Path home;
  private final Machine machine;

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

  Result run(HostFacts host, String hostSource, Given given) {
    p.println(st.bold("strata-setup") + " — writes one engine config for this machine and model.");
    p.println(st.accent("host:  ") + hostSummary(host) + st.dim("  (" + hostSource + ")"));

    GgufModel model = given.model() != null ? GgufReader.readModel(given.model()) : askModel();
    p.println(st.accent("model: ") + modelSummary(model));

    Path libGuess =
        given.engineLib() != null
            ? given.engineLib()
            : EngineLibraries.discover(
                    EngineLibraries.backend(host, null, given.backend()),
                    machine.strataHome(),
                    machine.strataRoot(),
                    machine.osName())
                .orElse(null);
    Backend backend = EngineLibraries.backend(host, libGuess, given.backend());
    Template template = Templates.load(backend);
    ModelGeometry g = model.geometry();
    PlanDefaults defaults = PlanDefaults.compute(host, g, backend, template.env());
    List<String> shards = SetupFlow.shardPaths(model);

    Answers answers;
    Generator.Generated planned;
    while (true) {
      long ctx =
          given.context() != null
              ? given.context()
              : askContext(host, g, backend, template, defaults);
      ExpertsMode experts =
          given.experts() != null ? given.experts() : askExperts(host, g, ctx, template, defaults);
      KvFormat kv = given.kv() != null ? given.kv() : askKv(host, g, ctx, template);
      answers = new Answers(ctx, experts, kv);
      planned = Generator.plan(host, g, shards, answers, new Generator.Library("", null), template);
      if (planned.plan().fits()) {
        break;
      }
      p.println(st.error("This does not fit: " + planned.plan().refusal()));
      if (given.context() != null && given.experts() != null && given.kv() != null) {
        throw new StrataException(ExitCodes.PREFLIGHT, planned.plan().refusal());
      }
      p.println("Choose again.");
    }

    Path lib = given.engineLib() != null ? given.engineLib() : askLibrary(libGuess, host);
    Backend finalBackend = EngineLibraries.backend(host, lib, given.backend());
    if (finalBackend != backend) {
      p.println(
          st.dim(
              "backend: " + finalBackend.id() + " (from the library's name), not " + backend.id()));
    }
    return new Result(model, answers, lib);
  }

  /** Shows the plan the answers give, before {@link #confirm} (or the refusal) follows. */
  void showPlan(Generator.Generated generated) {
    p.println("");
    for (String line : PlanText.table(generated.plan()).split("\n")) {
      p.println(line);
    }
  }

  /**
   * Before writing: shows the diff old → new when the file exists, then asks. A config edited by
   * hand is replaced only on an explicit yes (default no), the wizard's {@code --force}.
   *
   * @return true to write
   */
  boolean confirm(
      Path target, String oldText, boolean exists, boolean owned, String newText, boolean force) {
    // everything shown goes through the one escape: a hand-edited config may hold control chars
    String shown = TerminalText.escape(target.toString());
    String shownName = TerminalText.escape(target.getFileName().toString());
    if (exists) {
      if (oldText.equals(newText)) {
        p.println(shown + " already holds exactly this config.");
      } else {
        p.println("");
        p.println(st.bold(shown + " exists; the changes, old → new:"));
        for (String line :
            dev.strata.engine.write.UnifiedDiff.diff(
                    target + " (now)", oldText, target + " (new)", newText)
                .split("\n")) {
          line = TerminalText.escape(line);
          p.println(
              line.startsWith("+") && !line.startsWith("+++")
                  ? st.good(line)
                  : line.startsWith("-") && !line.startsWith("---") ? st.error(line) : line);
        }
      }
      if (!owned && !force) {
        return p.ask(
            new Question.YesNo(
                "--force",
                "Replace it anyway (the old file is kept as " + shownName + ".bak)?",
                List.of(
                    st.error(shownName + " was edited by hand or not written by strata-setup.")),
                false));
      }
    }
    return p.ask(new Question.YesNo("--yes", "Write " + shown + "?", List.of(), true));
  }

  private GgufModel askModel() {
    GgufModel[] read = new GgufModel[1];
    Path found = findModel(workingDir);
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
    p.ask(q);
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

  private long askContext(
      HostFacts host, ModelGeometry g, Backend backend, Template t, PlanDefaults defaults) {
    List<Long> sizes = new ArrayList<>();
    for (long c : PlanDefaults.STANDARD_CONTEXTS) {
      if (g.trainedContext() <= 0 || c <= g.trainedContext()) {
        sizes.add(c);
      }
    }
    if (!sizes.contains(defaults.context())) {
      sizes.add(defaults.context());
      sizes.sort(null);
    }
    List<Question.Option<Long>> options = new ArrayList<>();
    for (long c : sizes) {
      KvComparison cmp = KvComparison.at(host, g, c, backend, t.env());
      boolean fits =
          MemoryPlan.compute(host, g, c, ExpertsMode.STREAM, cmp.defaultFormat(), backend, t.env())
              .fits();
      String detail =
          "KV "
              + cmp.defaultFormat().flagName()
              + " "
              + size(cmp.defaultKvBytes())
              + (cmp.q4Available() ? " · q4_0 " + size(cmp.q4KvBytes()) : "")
              + (fits ? "" : "  (does not fit)");
      options.add(new Question.Option<>(Long.toString(c), detail, c));
    }
    int def = sizes.indexOf(defaults.context());
    List<String> notes =
        List.of(
            "",
            st.bold("Context")
                + " — tokens the engine keeps; each size with its KV cache under the default"
                + " format and under q4_0. Default: the largest that fits with margin.");
    return p.ask(new Question.Choice<>("--ctx", "Context", notes, options, def));
  }

  private ExpertsMode askExperts(
      HostFacts host, ModelGeometry g, long ctx, Template t, PlanDefaults defaults) {
    Backend b = t.backend();
    MemoryPlan stream =
        MemoryPlan.compute(host, g, ctx, ExpertsMode.STREAM, defaults.pools(), b, t.env());
    MemoryPlan resident =
        MemoryPlan.compute(host, g, ctx, ExpertsMode.RESIDENT, defaults.pools(), b, t.env());
    ExpertsMode def =
        PlanDefaults.residentFitsWithMargin(resident) ? ExpertsMode.RESIDENT : ExpertsMode.STREAM;
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
                "", st.bold("Experts") + " — where the MoE experts live at context " + ctx + "."),
            options,
            def == ExpertsMode.STREAM ? 0 : 1));
  }

  private KvFormat askKv(HostFacts host, ModelGeometry g, long ctx, Template t) {
    KvComparison cmp = KvComparison.at(host, g, ctx, t.backend(), t.env());
    if (!cmp.q4Available()) {
      p.println(
          st.dim(
              "KV format: the default path ("
                  + cmp.defaultFormat().flagName()
                  + "); q4_0 needs head_dim 256, this model has "
                  + g.headDim()));
      return null;
    }
    List<String> notes = new ArrayList<>();
    notes.add("");
    String slots =
        cmp.arenaSlotsWon() > 0
            ? String.format(Locale.ROOT, " and wins %,d resident expert slots", cmp.arenaSlotsWon())
            : " (the stream arena already holds every expert here: it wins no slots)";
    notes.add(
        st.bold("KV cache format")
            + String.format(
                Locale.ROOT,
                " — at %,d tokens q4_0 saves %s (%s → %s)%s.",
                ctx,
                size(cmp.bytesSaved()),
                size(cmp.defaultKvBytes()),
                size(cmp.q4KvBytes()),
                slots));
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
    return p.ask(new Question.Choice<>("--kv", "KV format", notes, options, 0)).orElse(null);
  }

  private Path askLibrary(Path guess, HostFacts host) {
    Question.PathAnswer q =
        new Question.PathAnswer(
            "--engine-lib",
            "Engine library (Tab completes)",
            List.of("", st.bold("Engine library") + " — the engine the launcher loads."),
            guess,
            home,
            workingDir,
            lib -> EngineLibraries.problem(lib, host)); // launch's own checks, at once
    return p.ask(q);
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
    sb.append(String.format(Locale.ROOT, ", %.1f GiB", h.memoryBytes() / (double) (1L << 30)));
    if (h.isMac()) {
      sb.append(", GPU family ").append(h.gpuFamily());
      sb.append(", Metal 4 ").append(h.metal4() ? "yes" : "no");
      sb.append(", k4 ").append(h.k4() ? "yes" : "no");
    }
    return sb.toString();
  }

  static String modelSummary(GgufModel m) {
    ModelGeometry g = m.geometry();
    return String.format(
        Locale.ROOT,
        "%s — %s, %d shard%s, %s on disk; %d QSA layers, %d experts (%d per token), trained"
            + " context %,d",
        m.firstShard(),
        g.architecture(),
        m.shards().size(),
        m.shards().size() == 1 ? "" : "s",
        GgufModel.gb(m.fileBytes()),
        g.qsaLayerCount(),
        g.experts(),
        g.expertsUsed(),
        g.trainedContext());
  }

  /** Bytes for people: MB below 1 GB, else GB (decimal, as upstream quotes its KV figures). */
  static String size(long bytes) {
    return bytes < 1_000_000_000L
        ? String.format(Locale.ROOT, "%.1f MB", bytes / 1e6)
        : String.format(Locale.ROOT, "%.2f GB", bytes / 1e9);
  }
}
