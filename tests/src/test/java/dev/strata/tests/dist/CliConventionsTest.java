package dev.strata.tests.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.launcher.LaunchCli;
import java.io.IOException;
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

  /** {@code --help} exits 0 with the usage first and documents exit codes and examples. */
  private static String help(Cli.Result r, String command) {
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("Usage: " + command), r.out());
    assertTrue(r.out().contains("Exit codes:") && r.out().contains("Examples:"), r.out());
    return r.out();
  }

  @Test
  void setupHelpTeachesKvExitCodesAndExamples() {
    String out = help(Cli.setup("--help"), "strata-setup");
    assertTrue(out.contains("--kv=FORMAT"), "--kv is documented");
    String flowed = out.replaceAll("\\s+", " "); // help wraps to the terminal's width
    assertTrue(flowed.contains("576 instead of 1,056 B per cell"), "--kv says what q4_0 saves");
    assertTrue(out.contains("--kv q4_0 --print"), "an example opts into q4_0");
  }

  @Test
  void launchHelpTeachesKvExitCodesAndExamples() {
    String out = help(Cli.launch("--help"), "strata-launch");
    assertTrue(out.contains("--kv k8v4"), "the --kv refusals are documented");
    assertTrue(out.contains("--dry-run") && out.contains("--json"), out);
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

  /** A usage error (exit 2) whose stderr suggests {@code suggestion}; returns the result. */
  private static Cli.Result suggests(Cli.Result r, String suggestion) {
    assertEquals(2, r.code());
    assertTrue(r.err().contains(suggestion), r.err());
    return r;
  }

  @Test
  void mistypedCtxIsExit2SuggestingCtx() {
    Cli.Result r = suggests(Cli.setup("--ctz", "8192"), "did you mean --ctx?");
    assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    assertEquals("", r.out());
  }

  @Test
  void mistypedLaunchFlagIsExit2WithSuggestion() {
    suggests(Cli.launch("--dryrun"), "--dry-run");
  }

  @Test
  void mistypedSubcommandIsExit2WithSuggestion() {
    suggests(Cli.setup("prob"), "probe");
    suggests(Cli.launch("completon", "bash"), "completion");
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
    CommandLine withNoColor = LaunchCli.create(Cli.discarding(Map.of("NO_COLOR", "1"), false));
    assertEquals(CommandLine.Help.Ansi.OFF, withNoColor.getColorScheme().ansi());
    CommandLine piped = LaunchCli.create(Cli.discarding(Map.of(), false));
    // colour only on a terminal (the Io says whether there is one), and not with NO_COLOR
    assertEquals(CommandLine.Help.Ansi.OFF, piped.getColorScheme().ansi());
    CommandLine terminal = LaunchCli.create(Cli.discarding(Map.of(), true));
    assertEquals(CommandLine.Help.Ansi.ON, terminal.getColorScheme().ansi());
    CommandLine terminalNoColor = LaunchCli.create(Cli.discarding(Map.of("NO_COLOR", "1"), true));
    assertEquals(CommandLine.Help.Ansi.OFF, terminalNoColor.getColorScheme().ansi());
    assertFalse(Cli.launch("--help").out().contains(ESC));
  }
}
