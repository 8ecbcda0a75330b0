package dev.strata.tests.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.launcher.LaunchCli;
import java.io.IOException;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Issue 10's conventions over both commands, as a user meets them: help that documents {@code
 * --kv}, exit codes and examples; {@code --version} from the build; a mistyped flag or subcommand
 * is exit 2 with a suggestion; colour only on a terminal and never with NO_COLOR. (The same checks
 * run on the built distribution in {@code dist/src/test/dist-smoke.sh}.)
 */
class CliConventionsTest {
  private static final String ESC = "\u001b[";

  @Test
  void setupHelpTeachesKvExitCodesAndExamples() {
    Cli.Result r = Cli.setup("--help");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("Usage: strata-setup"), r.out());
    assertTrue(r.out().contains("--kv=FORMAT"), "--kv is documented");
    String flowed = r.out().replaceAll("\\s+", " "); // help wraps to the terminal's width
    assertTrue(flowed.contains("576 instead of 1,056 B per cell"), "--kv says what q4_0 saves");
    assertTrue(r.out().contains("Exit codes:") && r.out().contains("Examples:"), r.out());
    assertTrue(r.out().contains("--kv q4_0 --print"), "an example opts into q4_0");
  }

  @Test
  void launchHelpTeachesKvExitCodesAndExamples() {
    Cli.Result r = Cli.launch("--help");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("Usage: strata-launch"), r.out());
    assertTrue(r.out().contains("--kv k8v4"), "the --kv refusals are documented");
    assertTrue(r.out().contains("Exit codes:") && r.out().contains("Examples:"), r.out());
    assertTrue(r.out().contains("--dry-run") && r.out().contains("--json"), r.out());
  }

  @Test
  void versionIsTheBuildsVersion() throws IOException {
    String version = Cli.projectVersion();
    Cli.Result s = Cli.setup("--version");
    assertEquals(0, s.code(), s.err());
    assertEquals("strata-setup " + version, s.firstLine());
    Cli.Result l = Cli.launch("--version");
    assertEquals(0, l.code(), l.err());
    assertEquals("strata-launch " + version, l.firstLine());
  }

  @Test
  void mistypedCtxIsExit2SuggestingCtx() {
    Cli.Result r = Cli.setup("--ctz", "8192");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("did you mean --ctx?"), r.err());
    assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    assertEquals("", r.out());
  }

  @Test
  void mistypedLaunchFlagIsExit2WithSuggestion() {
    Cli.Result r = Cli.launch("--dryrun");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("--dry-run"), r.err());
  }

  @Test
  void mistypedSubcommandIsExit2WithSuggestion() {
    Cli.Result r = Cli.setup("prob");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("probe"), r.err());
    Cli.Result l = Cli.launch("completon", "bash");
    assertEquals(2, l.code());
    assertTrue(l.err().contains("completion"), l.err());
  }

  @Test
  void probeIsColouredOnATerminalOnly() {
    String[] args = {"probe", "--host-file", "m4-pro-48"};
    Cli.Result tty = Cli.setup(Map.of("TERM", "xterm-256color"), true, args);
    assertEquals(0, tty.code(), tty.err());
    assertTrue(tty.out().contains(ESC), "coloured on a terminal (the control case)");

    Cli.Result noColor = Cli.setup(Map.of("TERM", "xterm-256color", "NO_COLOR", "1"), true, args);
    assertEquals(0, noColor.code(), noColor.err());
    assertFalse(noColor.out().contains(ESC), noColor.out());
    assertTrue(noColor.out().contains("Apple M4 Pro"), noColor.out());

    Cli.Result pipe = Cli.setup(Map.of("TERM", "xterm-256color"), false, args);
    assertFalse(pipe.out().contains(ESC), pipe.out());
    assertEquals(noColor.out(), pipe.out(), "the same text, only without colour");
  }

  @Test
  void launchHelpHasNoColourWithNoColor() {
    CommandLine withNoColor =
        LaunchCli.create(
            Cli.launchIo(new StringWriter(), new StringWriter(), Map.of("NO_COLOR", "1")));
    assertEquals(CommandLine.Help.Ansi.OFF, withNoColor.getColorScheme().ansi());
    CommandLine piped =
        LaunchCli.create(Cli.launchIo(new StringWriter(), new StringWriter(), Map.of()));
    // colour only on a terminal (the Io says whether there is one), and not with NO_COLOR
    assertEquals(CommandLine.Help.Ansi.OFF, piped.getColorScheme().ansi());
    dev.strata.engine.cli.Io terminal =
        dev.strata.engine.cli.Io.of(
            new java.io.PrintWriter(new StringWriter()),
            new java.io.PrintWriter(new StringWriter()),
            Map.of(),
            true);
    assertEquals(CommandLine.Help.Ansi.ON, LaunchCli.create(terminal).getColorScheme().ansi());
    dev.strata.engine.cli.Io terminalNoColor =
        dev.strata.engine.cli.Io.of(
            new java.io.PrintWriter(new StringWriter()),
            new java.io.PrintWriter(new StringWriter()),
            Map.of("NO_COLOR", "1"),
            true);
    assertEquals(
        CommandLine.Help.Ansi.OFF, LaunchCli.create(terminalNoColor).getColorScheme().ansi());
    assertFalse(Cli.launch("--help").out().contains(ESC));
  }
}
