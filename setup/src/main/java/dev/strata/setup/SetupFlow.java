package dev.strata.setup;

import dev.strata.cli.Io;
import dev.strata.cli.LaunchHint;
import dev.strata.cli.Machine;
import dev.strata.cli.TableValues;
import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.flags.EngineArgs;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.gen.Answers;
import dev.strata.engine.gen.Generator;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.plan.PlanText;
import dev.strata.engine.text.ShellWords;
import dev.strata.engine.text.TerminalText;
import dev.strata.engine.write.ConfigPaths;
import dev.strata.engine.write.ConfigWriter;
import dev.strata.setup.gen.AnswersFile;
import dev.strata.setup.gen.EngineLibraries;
import dev.strata.setup.gen.Given;
import dev.strata.setup.prompt.Prompter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The one flow of {@code strata-setup}: what the flags and the answers file say, the host, then the
 * answers — from the wizard on a terminal, else from the flags alone — and for both the same {@link
 * #generate} (plan, and exit 3 if it does not fit), then print or write.
 */
final class SetupFlow {
  /**
   * What the command line asks for.
   *
   * @param flags the answers the flags give (null = not said)
   * @param answersFile {@code --answers FILE}, or null
   * @param out {@code --out FILE}, or null
   * @param print {@code --print}
   * @param yes {@code --yes}: ask nothing
   * @param force {@code --force}: replace a config edited by hand
   * @param gpuFamily {@code --gpu-family}: this Mac's GPU family instead of asking Metal, or null
   * @param measureKv {@code --measure-kv}: measure the model's KV trade-off on this machine first
   *     (shown and cached; the config is the same)
   */
  record Request(
      Given flags,
      Path answersFile,
      Path out,
      boolean print,
      boolean yes,
      boolean force,
      Integer gpuFamily,
      boolean measureKv) {}

  private final Io io;
  private final Machine machine;
  private final SetupCli.PrompterFactory prompter;
  private final SetupHost hosts;

  SetupFlow(Io io, Machine machine, SetupCli.PrompterFactory prompter) {
    this.io = io;
    this.machine = machine;
    this.prompter = prompter;
    this.hosts = new SetupHost(io, machine);
  }

  /** Runs the request; returns the exit code (refusals are thrown as {@link StrataException}). */
  int run(Request r) {
    Given given = resolve(r);
    boolean wizard = io.interactive() && !r.yes();
    GgufModel[] read = {null}; // the model, once read (requireAnswers may need its geometry)
    if (!wizard) {
      requireAnswers(given, r.yes(), () -> read[0] = GgufReader.readModel(given.model()));
    }
    HostProfiles.Loaded host = hosts.load(given.hostFile(), r.gpuFamily());
    Path dest =
        r.print()
            ? null
            : (r.out() != null
                ? machine.workingDir().resolve(r.out())
                : ConfigPaths.defaultConfig(io.env(), machine.osName()));
    if (wizard) {
      return runWizard(host, given, r, dest);
    }
    host = hosts.gpuFamilyAnswered(host, null);
    GgufModel gguf = read[0] != null ? read[0] : GgufReader.readModel(given.model());
    long trained = gguf.geometry().trainedContext();
    if (given.context() != null && trained > 0 && given.context() > trained) {
      io.err()
          .println(
              "strata-setup: warning: --ctx "
                  + given.context()
                  + " is above the model's trained context "
                  + trained
                  + ": past it, quality is not what the model was trained for");
      io.err().flush();
    }
    Answers a = new Answers(given.context(), given.experts(), given.kv());
    Path library = library(host.facts(), given);
    if (r.measureKv()) {
      SetupMeasure.measure(io, machine, host.facts(), gguf, library, given.backend());
    }
    if (given.context() != null && r.flags().context() == null && r.answersFile() != null) {
      // the answers file's ctx, named as the file names it (not as a --ctx never given)
      String problem =
          Generator.contextProblem(
              dev.strata.engine.gen.Templates.load(
                  EngineLibraries.backend(host.facts(), library, given.backend())),
              given.context(),
              "ctx");
      if (problem != null) {
        throw new StrataException(ExitCodes.USAGE, r.answersFile() + ": " + problem);
      }
    }
    Generator.Generated g = generate(host.facts(), gguf, a, library, given.backend(), x -> {});
    String yaml = ConfigCodec.write(g.config());
    if (r.print()) {
      return printed(yaml, g);
    }
    return write(dest, yaml, g, r.force(), true);
  }

  /**
   * The config for these answers, and its plan: exit 3 ({@link ExitCodes#PREFLIGHT}) with the
   * plan's refusal when it does not fit. {@code beforeCheck} sees the result first (the wizard
   * shows the plan table, fitting or not).
   */
  static Generator.Generated generate(
      HostFacts host,
      GgufModel model,
      Answers answers,
      Path library,
      Backend requested,
      Consumer<Generator.Generated> beforeCheck) {
    Backend backend = EngineLibraries.backend(host, library, requested);
    Generator.Generated g =
        Generator.plan(
            host,
            model.geometry(),
            shardPaths(model),
            answers,
            EngineLibraries.describe(library, host),
            dev.strata.engine.gen.Templates.load(backend));
    beforeCheck.accept(g);
    return g.requireFits();
  }

  /** Every shard's path, absolute and normalized, first shard first: what the config lists. */
  static List<String> shardPaths(GgufModel model) {
    List<String> out = new ArrayList<>();
    for (GgufModel.Shard s : model.shards()) {
      out.add(s.path().toAbsolutePath().normalize().toString());
    }
    return out;
  }

  /** Flags over the answers file; paths from the command line resolved against the working dir. */
  private Given resolve(Request r) {
    Given given =
        r.answersFile() == null
            ? r.flags()
            : r.flags().over(AnswersFile.read(r.answersFile(), homeOf()));
    if (given.context() != null) {
      String problem = TableValues.problem(EngineFlags.CTX, Long.toString(given.context()));
      if (problem != null) {
        throw new StrataException(ExitCodes.USAGE, EngineFlags.CTX + ": " + problem);
      }
    }
    return new Given(
        given.model() == null ? null : machine.resolve(given.model()),
        given.context(),
        given.experts(),
        given.kv(),
        given.engineLib() == null ? null : machine.resolve(given.engineLib()),
        given.backend(),
        given.hostFile());
  }

  private int runWizard(HostProfiles.Loaded host, Given given, Request r, Path dest) {
    Prompter p;
    try {
      p = prompter.open(io);
    } catch (IOException e) {
      throw new StrataException(
          ExitCodes.USAGE,
          "cannot open the terminal ("
              + e.getMessage()
              + "): pass the answers as flags (--model, --ctx, --experts) or --yes");
    }
    try {
      host = hosts.gpuFamilyAnswered(host, p);
      Wizard w = new Wizard(p, machine, homeOf(), io.env(), r.measureKv());
      Wizard.Target target;
      Wizard.Previous previous = Wizard.Previous.NONE;
      if (r.print()) {
        target = Wizard.Target.print();
      } else {
        ConfigWriter.Existing existing = ConfigWriter.inspect(dest);
        target =
            new Wizard.Target(
                dest, existing.text(), existing.exists(), existing.owned(), r.force());
        if (existing.exists()) {
          previous = previousAnswers(dest);
        }
      }
      Wizard.Result answers = w.run(host.facts(), host.source(), given, previous, target);
      // the wizard's answers go through the same generate-and-check as the flags' (exit 3)
      Generator.Generated g =
          generate(
              host.facts(),
              answers.model(),
              answers.answers(),
              Path.of(answers.library().path()),
              given.backend(),
              x -> {});
      String yaml = ConfigCodec.write(g.config());
      p.close();
      if (r.print()) {
        return printed(yaml, g);
      }
      // The user saw the diff and said yes: that is the wizard's --force.
      return write(dest, yaml, g, true, false);
    } finally {
      p.close();
    }
  }

  /**
   * The answers of the config already at {@code dest}, so a second run starts from them; nothing
   * when it is not a config this toolkit reads (the wizard then offers the planned defaults).
   */
  static Wizard.Previous previousAnswers(Path dest) {
    dev.strata.engine.config.EngineConfig c;
    try {
      c = ConfigCodec.read(dest);
    } catch (StrataException e) {
      return Wizard.Previous.NONE;
    }
    // the config's own typed args (parsed once when it was read): the values it runs with
    EngineArgs a = c.engineArgs();
    Path model = c.model().shards().isEmpty() ? null : Path.of(c.model().shards().getFirst());
    Path lib = c.engine().library() == null ? null : Path.of(c.engine().library());
    return new Wizard.Previous(model, (long) a.ctx(), a.experts(), a.kv(), a.kv() == null, lib);
  }

  /**
   * {@code --print}: the config reached standard output whole, or the command fails (a full disk,
   * {@code > /dev/full}, a closed pipe) with one line instead of exiting 0 with nothing written.
   */
  private void requirePrinted() {
    io.out().flush();
    if (io.out().checkError()) {
      throw new StrataException(
          ExitCodes.USAGE,
          "--print: cannot write the config to standard output (disk full, or the reader went"
              + " away?): the config was not printed");
    }
  }

  /**
   * {@code --print}: the config on standard output; on standard error only the pinned engine's
   * refusal of it, when it refuses (as {@link #write} says it in place of the launch hint).
   */
  private int printed(String yaml, Generator.Generated g) {
    io.out().print(yaml);
    requirePrinted();
    String refused =
        SetupEngineCheck.refusal(g.config(), machine.workingDir(), "the printed config");
    if (refused != null) {
      io.err()
          .println(
              TerminalText.escape(
                  "strata-setup: the launch will be refused: "
                      + refused
                      + " (the config is printed all the same)"));
      io.err().flush();
    }
    return ExitCodes.OK;
  }

  private int write(
      Path dest, String yaml, Generator.Generated g, boolean force, boolean showPlan) {
    ConfigWriter.Result w;
    try {
      w = ConfigWriter.write(dest, yaml.getBytes(StandardCharsets.UTF_8), force);
    } catch (ConfigWriter.KeptException e) {
      io.err().println("strata-setup: " + TerminalText.escape(e.getMessage()));
      io.err().print(TerminalText.escapeLines(e.diff()));
      io.err().flush();
      return e.exitCode();
    }
    if (showPlan) {
      io.out().print(PlanText.table(g.plan(), io.width()));
    }
    switch (w.outcome()) {
      case CREATED -> io.out().println("wrote " + TerminalText.escape(w.path().toString()));
      case REPLACED ->
          io.out()
              .println(
                  "wrote "
                      + TerminalText.escape(w.path().toString())
                      + " (the previous config is "
                      + TerminalText.escape(w.backup().toString())
                      + ")");
      case UNCHANGED ->
          io.out()
              .println(
                  TerminalText.escape(w.path().toString())
                      + " already holds this config: unchanged");
    }
    io.out().flush();
    // what to run next, as the demo says it: on stderr, so stdout stays the plan and the path;
    // unless the pinned engine's own check refuses the config (what the launch will say)
    String refused =
        SetupEngineCheck.refusal(g.config(), machine.workingDir(), w.path().toString());
    io.err()
        .println(
            TerminalText.escape(
                refused == null
                    ? LaunchHint.launchIt(machine, w.path())
                    : "strata-setup: the launch will be refused: "
                        + refused
                        + " (the config is written; "
                        + LaunchHint.command(
                            machine.strataRoot(), machine.strataHome(), machine.workingDir())
                        + " --plan --config "
                        + ShellWords.quote(w.path().toAbsolutePath().toString())
                        + " shows the engine's answer)"));
    io.err().flush();
    return ExitCodes.OK;
  }

  /**
   * Without a terminal every answer must be given; one message names all that are missing. A dense
   * model (no experts) is not asked {@code --experts}: there is nothing to stream, and the plan's
   * default stands ({@code model} reads the model to know; not read when the answer is given).
   */
  private void requireAnswers(Given given, boolean yes, Supplier<GgufModel> model) {
    List<String> missing = new ArrayList<>();
    if (given.model() == null) {
      missing.add(EngineFlags.MODEL + " PATH");
    }
    if (!yes) {
      if (given.context() == null) {
        missing.add(EngineFlags.lookup(EngineFlags.CTX).usage());
      }
      if (given.experts() == null
          && (given.model() == null || model.get().geometry().expertSlots() > 0)) {
        missing.add(
            EngineFlags.EXPERTS + " " + String.join("|", TableValues.choices(EngineFlags.EXPERTS)));
      }
    }
    if (!missing.isEmpty()) {
      throw new StrataException(
          ExitCodes.USAGE,
          (io.interactive() ? "" : "no terminal to ask on, and ")
              + "missing: "
              + String.join(", ", missing)
              + (yes
                  ? ""
                  : " (pass them, or --answers FILE, or --yes to take the planned defaults for"
                      + " --ctx and --experts)"));
    }
  }

  private Path library(HostFacts host, Given given) {
    if (given.engineLib() != null) {
      return given.engineLib();
    }
    Backend b = EngineLibraries.backend(host, null, given.backend());
    return EngineLibraries.discover(b, machine.strataHome(), machine.strataRoot(), machine.osName())
        .orElseThrow(
            () ->
                new StrataException(
                    ExitCodes.USAGE,
                    "missing: --engine-lib PATH (no "
                        + b.id()
                        + " engine library found"
                        + (b == Backend.CPU_REFERENCE
                            ? "; build strata-ref with ./strata build"
                            : "")
                        + ")"));
  }

  private Path homeOf() {
    String h = io.env().get("HOME");
    return h == null || h.isBlank() ? null : Path.of(h);
  }
}
