package dev.strata.setup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.cli.CliOption;
import dev.strata.cli.CliSpec;
import dev.strata.cli.CliValues;
import dev.strata.cli.EngineOptions;
import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.cli.SimpleArgs;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.testsupport.FastPathCheck;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * The start-up fast path ({@link SetupOptions#simple}) against picocli's parse of the same command
 * ({@link SetupCli}), both made from {@link SetupOptions#TABLE}: the same options, and for every
 * argument list of a corpus either the same request or no fast answer (picocli then parses, and
 * reports what is wrong).
 */
class SetupOptionsTest {

  static CommandLine picocli() {
    Io io =
        Io.of(
            new PrintWriter(new StringWriter()),
            new PrintWriter(new StringWriter()),
            Map.of(),
            false);
    Machine m =
        new Machine(
            "Linux",
            Path.of("/work"),
            null,
            null,
            env -> {
              throw new AssertionError("no probe while parsing");
            },
            Clock.systemUTC());
    return SetupCli.create(
        io,
        m,
        x -> {
          throw new AssertionError("no prompter while parsing");
        });
  }

  @Test
  void theFastPathKnowsExactlyTheCommandsOwnOptions() {
    FastPathCheck.sameOptions(picocli(), SetupOptions.TABLE, CliOption::names, CliOption::isSwitch);
  }

  /** bash completion offers files for an option whose type is a Path, as it did when annotated. */
  @Test
  void pathOptionsAreTypedAsPathsInTheModel() {
    for (String name : List.of("--model", "--engine-lib", "--out", "--answers")) {
      assertEquals(Path.class, picocli().getCommandSpec().findOption(name).type(), name);
    }
  }

  static List<List<String>> corpus() {
    String m = "/m/a-00001-of-00004.gguf";
    return List.of(
        List.of("--model", m, "--ctx", "32768", "--experts", "stream", "--print"),
        List.of("--model", m, "--yes", "--measure-kv", "--print"),
        List.of(
            "--host-file",
            "m4-pro-48",
            "--model",
            m,
            "--ctx",
            "32k",
            "--experts",
            "resident",
            "--kv",
            "q4_0",
            "--engine-lib",
            "lib/libstrata.dylib",
            "--print"),
        List.of("--model", "rel/m.gguf", "--yes", "--out", "o.yaml", "--force"),
        List.of("--answers", "a.yaml", "--backend", "cpu-reference", "--out", "x.yaml"),
        List.of("--model", m, "--kv", "k8v4", "--ctx", "1", "--experts", "stream", "--print"),
        List.of("--print"),
        List.of("--yes"),
        List.of("--model", m, "--measure-kv", "--print"),
        // not simple: picocli parses or refuses them
        List.of(),
        List.of("--ctx=4096", "--print"),
        List.of("--ctx", "0", "--print"),
        List.of("--ctx", "lots"),
        List.of("--ctx", "1048577"),
        List.of("--ctx", "-5"),
        List.of("--experts", "both"),
        List.of("--kv", "q8"),
        List.of("--backend", "cuda"),
        List.of("--model", m, "--model", m),
        List.of("--print", "--print"),
        List.of("--out", "o.yaml", "--print"),
        List.of("--model"),
        List.of("--model", "--print"),
        List.of("--help"),
        List.of("-h"),
        List.of("--version"),
        List.of("probe", "--json"),
        List.of("prob"),
        List.of("--modle", m),
        List.of("--", "--print"),
        List.of("--model", m, "extra"),
        List.of("--kvv", "q4_0"),
        List.of("--gpu-family", "apple9", "--model", m, "--yes", "--print"),
        // a subcommand's name where a value should be: picocli refuses it
        List.of("--model", m, "--yes", "--out", "probe"),
        List.of("--model", "demo-model", "--print"),
        List.of("--answers", "help", "--print"),
        List.of("--host-file", "completion", "--print"),
        List.of("--model", "probes", "--print"),
        // an argument file (@FILE) picocli expands in place, when it exists (below) or not
        List.of("--model", "@/nonexistent-strata/args", "--print"));
  }

  @ParameterizedTest
  @MethodSource("corpus")
  void theFastPathAgreesWithPicocliOrDefers(List<String> args) {
    String[] argv = args.toArray(String[]::new);
    FastPathCheck.agrees(
        picocli(), argv, SetupOptions.simple(argv), command -> ((SetupCommand) command).request());
  }

  @Test
  void theFastPathKnowsTheSubcommands() {
    assertEquals(picocli().getSubcommands().keySet(), SetupOptions.SUBCOMMANDS);
  }

  @Test
  void anArgumentFileIsPicoclisEvenWhereTheFastPathWouldTakeItLiterally(@TempDir Path tmp)
      throws java.io.IOException {
    // picocli reads @FILE's words in place of the argument: taken as a path, the fast path would
    // plan another model than picocli would
    Path argFile = tmp.resolve("more");
    java.nio.file.Files.writeString(argFile, "m.gguf --print\n");
    String[] argv = {"--model", "@" + argFile};
    assertNull(SetupOptions.simple(argv));
    CommandLine cl = picocli();
    cl.parseArgs(argv);
    SetupFlow.Request r = ((SetupCommand) cl.getCommand()).request();
    assertEquals(Path.of("m.gguf"), r.flags().model(), "picocli expanded the file");
  }

  @Test
  void theScriptedPrintIsSimple() {
    assertNotNull(
        SetupOptions.simple(
            new String[] {
              "--model", "m.gguf", "--ctx", "32768", "--experts", "stream", "--print"
            }));
  }

  /**
   * Issue 33's acceptance: an engine flag setup shows is one row of the table plus its use. {@code
   * --spec} (an engine flag setup does not show today) added through the table alone is in {@code
   * --help} with the engine row's placeholder, read alike by the fast path and picocli, and refused
   * by both with the flag table's words.
   */
  @Test
  void anEngineFlagAddedThroughTheTableIsShownParsedAndCheckedByBothParsers() {
    CliOption<Integer> spec =
        EngineOptions.of(EngineFlags.SPEC, "MTP draft tokens per step.", Integer::valueOf);
    List<CliOption<?>> table = new java.util.ArrayList<>(SetupOptions.TABLE);
    table.add(spec);
    java.util.function.Supplier<CommandLine> cli =
        () -> {
          CommandLine cl = picocli();
          SetupCommand command = cl.getCommand();
          return dev.strata.cli.Cli.configure(
              new CommandLine(CliSpec.of(command, table)), command.io());
        };

    StringWriter help = new StringWriter();
    cli.get().setOut(new PrintWriter(help)).execute("--help");
    assertTrue(
        help.toString().contains("--spec=N") && help.toString().contains("MTP draft tokens"),
        help.toString());

    String[] argv = {"--model", "m.gguf", "--spec", "3", "--print"};
    CliValues fast = SimpleArgs.scan(argv, table, SetupOptions.SUBCOMMANDS);
    CommandLine cl = cli.get();
    cl.parseArgs(argv);
    CliValues parsed = CliSpec.values(cl.getCommandSpec(), table);
    assertEquals(3, fast.get(spec));
    assertEquals(3, parsed.get(spec));
    assertEquals(SetupOptions.request(fast), SetupOptions.request(parsed));

    String[] bad = {"--model", "m.gguf", "--spec", "17", "--print"};
    assertNull(SimpleArgs.scan(bad, table, SetupOptions.SUBCOMMANDS), "left to picocli");
    CommandLine.ParameterException e =
        assertThrows(CommandLine.ParameterException.class, () -> cli.get().parseArgs(bad));
    assertTrue(
        e.getMessage().endsWith(EngineFlags.lookup(EngineFlags.SPEC).kind().problem("17")),
        e.getMessage());
  }
}
