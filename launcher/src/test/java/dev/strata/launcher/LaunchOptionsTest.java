package dev.strata.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.strata.cli.CliOption;
import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.testsupport.FastPathCheck;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The start-up fast path ({@link LaunchOptions#simple}) against picocli's parse of the same command
 * ({@link LaunchCli}), both made from {@link LaunchOptions#TABLE}: the same options, and for every
 * argument list of a corpus either the same request or no fast answer (picocli then parses, and
 * reports what is wrong). Whole launches both ways: {@code LaunchFastPathTest}.
 */
class LaunchOptionsTest {
  @TempDir Path tmp;

  /** The command line as main builds it, on streams that discard and a machine never probed. */
  static CommandLine picocli() {
    PrintWriter none = new PrintWriter(Writer.nullWriter());
    return LaunchCli.create(
        Io.of(none, none, Map.of(), false),
        Machine.system(
            env -> {
              throw new AssertionError("no probe while parsing");
            }));
  }

  @Test
  void theFastPathKnowsExactlyTheCommandsOwnOptions() {
    FastPathCheck.sameOptions(
        picocli(), LaunchOptions.TABLE, CliOption::names, CliOption::isSwitch);
    assertEquals(picocli().getSubcommands().keySet(), LaunchOptions.SUBCOMMANDS);
  }

  /** What help, the man page and completion read: short names first, files offered for a path. */
  @Test
  void theModelWritesShortNamesFirstAndTypesPathsAsPaths() {
    CommandLine.Model.OptionSpec config = picocli().getCommandSpec().findOption("--config");
    assertEquals(List.of("-c", "--config"), List.of(config.names()));
    assertEquals(Path.class, config.type(), "bash completion offers files for a Path");
  }

  /** Argument lists, simple and not; {@code {args}} is an argument file that exists. */
  static List<List<String>> corpus() {
    String c = "/etc/strata/engine.yaml";
    return List.of(
        // simple
        List.of(),
        List.of("--dry-run", "--config", c),
        List.of("--config", c, "--dry-run"),
        List.of("-c", "rel/engine.yaml", "--dry-run"),
        List.of("--config", c),
        List.of("--config", c, "--isolate"),
        List.of("--config", c, "--json"),
        List.of("--plan", "--json", "--config", c),
        List.of("--plan", "--explain"),
        List.of("--plan", "--host-file", "m4-pro-48", "--config", c),
        List.of("--dry-run", "--json", "--host-file", "hosts/m.json", "--isolate"),
        List.of("--config", ""),
        List.of("--config", "engine yaml with spaces.yaml", "--dry-run"),
        List.of("--config", "demos"),
        List.of("--config", "./demo", "--dry-run"),
        List.of("--host-file", "Help", "--plan"),
        List.of("--config", c, "--prompt", "Hello world", "--temp", "0", "--n-predict", "8"),
        List.of(
            "--prompt-file", "p.txt", "--seed", "7", "--top-k", "0", "--top-p", "0.9", "--json"),
        List.of("--config", c, "--serve", "--port", "0", "--queue", "4"),
        List.of("--serve", "--host", "0.0.0.0", "--api-key", "sk-1", "--parallel", "1"),
        List.of("--chat", "--config", c),
        // simple, refused by the flow for both paths alike
        List.of("--serve", "--chat"),
        List.of("--port", "80"),
        List.of("--plan", "--dry-run"),
        List.of("--explain"),
        List.of("--explain", "--json", "--plan"),
        List.of("--host-file", "m4-pro-48"),
        List.of("--isolate", "--plan"),
        List.of("--n-predict", "8"),
        List.of("--prompt", "x", "--dry-run"),
        // not simple: picocli parses or refuses them
        List.of("--config=" + c, "--dry-run"),
        List.of("--config="),
        List.of("-c" + c),
        List.of("-c=" + c),
        List.of("--config"),
        List.of("--dry-run", "--config"),
        List.of("--config", "--dry-run"),
        List.of("--config", "-x"),
        List.of("--config", "-"),
        List.of("--host-file", "-c", c),
        List.of("--config", c, "--config", c),
        List.of("-c", c, "--config", c),
        List.of("-c", c, "-c", c),
        List.of("--dry-run", "--dry-run", "--config", c),
        List.of("--json", "--plan", "--json"),
        List.of("--host-file", "a", "--host-file", "b", "--plan"),
        List.of("--dry-run=true", "--config", c),
        List.of("--json=false"),
        List.of("--dryrun"),
        List.of("--config", c, "--dryrun"),
        List.of("-x"),
        List.of("--"),
        List.of("--", "--dry-run"),
        List.of("--config", c, "extra"),
        List.of("extra"),
        List.of("--help"),
        List.of("-h"),
        List.of("--config", c, "--help"),
        List.of("--version"),
        List.of("-V"),
        List.of("help"),
        List.of("demo"),
        List.of("demo", "--kv", "q4_0"),
        List.of("dem"),
        List.of("completion", "bash"),
        List.of("--config", "demo"),
        List.of("--config", "help", "--dry-run"),
        List.of("--host-file", "completion", "--plan"),
        List.of("--config", "bad\0path.yaml"),
        List.of("{args}"),
        List.of("--config", "{args}", "--dry-run"),
        List.of("--host-file", "{args}", "--plan"),
        List.of("--prompt-file", "-"),
        List.of("--prompt", "x", "--temp", "-1"),
        List.of("--prompt", "x", "--prompt", "y"),
        List.of("--prompt", "x", "--prompt-file", "{args}"));
  }

  @Test
  void theFastPathAgreesWithPicocliOrDefers() throws IOException {
    // an argument file picocli expands (@FILE): its words would change the command line
    Path argFile = tmp.resolve("args");
    Files.writeString(argFile, "--plan --json\n", StandardCharsets.UTF_8);
    int fastCount = 0;
    for (List<String> args : corpus()) {
      List<String> expanded = new ArrayList<>();
      for (String a : args) {
        expanded.add(a.equals("{args}") ? "@" + argFile : a);
      }
      if (agree(expanded.toArray(String[]::new))) {
        fastCount++;
      }
    }
    // the corpus's simple part: every list above the "not simple" line takes the fast path
    assertEquals(30, fastCount, "argument lists the fast path answers");
  }

  /** Checks one list; returns whether the fast path answered it. */
  private static boolean agree(String[] argv) {
    return FastPathCheck.agrees(
        picocli(),
        argv,
        LaunchOptions.simple(argv),
        command -> ((LaunchCommand) command).request());
  }

  @Test
  void theScriptedDryRunIsSimple() {
    LaunchFlow.Request r = LaunchOptions.simple(new String[] {"--dry-run", "--config", "c.yaml"});
    assertNotNull(r);
    assertEquals(
        new LaunchFlow.Request(
            Path.of("c.yaml"), true, false, false, false, false, null, null, null),
        r);
  }

  @Test
  void anArgumentFileIsPicoclisEvenWhereTheFastPathWouldTakeItLiterally() throws IOException {
    // picocli reads @FILE's words in place of the argument: taken as a path, it would launch
    // another config than picocli would
    Path argFile = tmp.resolve("more");
    Files.writeString(argFile, "c.yaml --dry-run\n", StandardCharsets.UTF_8);
    String[] argv = {"--config", "@" + argFile};
    assertNull(LaunchOptions.simple(argv));
    CommandLine cl = picocli();
    cl.parseArgs(argv);
    assertEquals(
        new LaunchFlow.Request(
            Path.of("c.yaml"), true, false, false, false, false, null, null, null),
        ((LaunchCommand) cl.getCommand()).request(),
        "picocli expanded the file");
  }
}
