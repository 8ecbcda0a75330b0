package dev.strata.tests.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.cli.Io;
import dev.strata.launcher.LaunchCli;
import dev.strata.setup.SetupCli;
import dev.strata.testsupport.GoldenFiles;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import picocli.CommandLine;

/**
 * Every command's {@code --help}, as a user reads it: each command line and each of its
 * subcommands, found from the command tree so a new subcommand cannot go unpinned.
 */
class HelpGoldenTest {
  private static final GoldenFiles GOLDEN = GoldenFiles.project();

  /** A command line as its product builds it, writing to the given out and err. */
  private record Cli(String name, BiFunction<StringWriter, StringWriter, CommandLine> factory) {}

  private static final List<Cli> CLIS =
      List.of(
          new Cli("strata-setup", (out, err) -> SetupCli.create(setupIo(out, err))),
          new Cli(
              "strata-launch",
              (out, err) ->
                  LaunchCli.create(
                      new Io(
                          java.io.InputStream.nullInputStream(),
                          new PrintWriter(out, true),
                          new PrintWriter(err, true),
                          Map.of(),
                          false,
                          code -> {
                            throw new IllegalStateException("halt " + code);
                          }))));

  /** A command path such as {@code [strata-setup, probe]} and its golden name. */
  record Command(Cli cli, List<String> path) {
    String golden() {
      return "help/" + String.join("-", path) + ".txt";
    }

    @Override
    public String toString() {
      return String.join(" ", path) + " --help";
    }
  }

  static List<Command> commands() {
    List<Command> out = new ArrayList<>();
    for (Cli cli : CLIS) {
      collect(cli, cli.factory().apply(new StringWriter(), new StringWriter()), List.of(), out);
    }
    return out;
  }

  private static void collect(Cli cli, CommandLine cl, List<String> parent, List<Command> out) {
    List<String> path = new ArrayList<>(parent);
    path.add(cl.getCommandName());
    out.add(new Command(cli, List.copyOf(path)));
    for (Map.Entry<String, CommandLine> sub : cl.getSubcommands().entrySet()) {
      // aliases map to the same CommandLine; pin each command once, under its own name
      if (sub.getKey().equals(sub.getValue().getCommandName())) {
        collect(cli, sub.getValue(), path, out);
      }
    }
  }

  @TestFactory
  Stream<DynamicTest> helpEqualsGolden() {
    return commands().stream()
        .map(
            c ->
                DynamicTest.dynamicTest(
                    c.toString(),
                    () -> {
                      StringWriter out = new StringWriter();
                      StringWriter err = new StringWriter();
                      List<String> argv = new ArrayList<>(c.path().subList(1, c.path().size()));
                      argv.add("--help");
                      int code =
                          c.cli().factory().apply(out, err).execute(argv.toArray(String[]::new));
                      assertEquals(0, code, c + " exit code; stderr: " + err);
                      assertEquals("", err.toString(), c + " writes help to stdout only");
                      GOLDEN.check(c.golden(), out.toString());
                    }));
  }

  @Test
  void everyHelpGoldenBelongsToACommand() {
    TreeSet<String> expected = new TreeSet<>();
    commands().forEach(c -> expected.add(c.golden()));
    List<String> present =
        GOLDEN.list("help").stream()
            .filter(n -> CLIS.stream().anyMatch(cli -> n.startsWith("help/" + cli.name())))
            .toList();
    List<String> stray = present.stream().filter(n -> !expected.contains(n)).toList();
    stray.forEach(GOLDEN::removeStale);
    if (!GOLDEN.updating()) {
      assertEquals(List.of(), stray, "help goldens of commands that no longer exist");
    }
  }

  private static Io setupIo(StringWriter out, StringWriter err) {
    return Io.of(
        new ByteArrayInputStream(new byte[0]),
        new PrintWriter(out, true),
        new PrintWriter(err, true),
        Map.of(),
        false);
  }
}
