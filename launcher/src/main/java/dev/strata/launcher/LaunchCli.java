package dev.strata.launcher;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.text.TerminalText;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.IntConsumer;
import picocli.CommandLine;

/**
 * The single factory of the {@code strata-launch} command line, used by {@link LaunchMain} and by
 * tests. Output goes through the injected writers so tests capture it; a {@link StrataException}
 * becomes its one-line message and exit code, never a stack trace.
 */
public final class LaunchCli {
  private LaunchCli() {}

  /**
   * What the command talks to.
   *
   * @param out standard output: the plan, the engine's info lines, --json documents
   * @param err standard error: warnings, refusals, the engine's warn/error lines
   * @param env the process environment (STRATA_CONFIG, XDG_CONFIG_HOME, HOME, NO_COLOR ...)
   * @param halt exits the process at once with a code (the second Ctrl-C); {@code Runtime::halt}
   *     for the real command
   */
  public record Io(PrintWriter out, PrintWriter err, Map<String, String> env, IntConsumer halt) {
    public static Io system() {
      return new Io(
          new PrintWriter(System.out, true, StandardCharsets.UTF_8),
          new PrintWriter(System.err, true, StandardCharsets.UTF_8),
          System.getenv(),
          code -> Runtime.getRuntime().halt(code));
    }
  }

  public static CommandLine create(Io io) {
    return configure(new CommandLine(new LaunchCommand(io)), io, "strata-launch");
  }

  /** The shared settings: writers, one-line errors, suggestions, exit 2 for usage. */
  static CommandLine configure(CommandLine cl, Io io, String name) {
    cl.setOut(io.out());
    cl.setErr(io.err());
    // Help is coloured only on a terminal (picocli's AUTO), and never when NO_COLOR is set.
    boolean noColor = io.env().containsKey("NO_COLOR");
    cl.setColorScheme(
        CommandLine.Help.defaultColorScheme(
            noColor ? CommandLine.Help.Ansi.OFF : CommandLine.Help.Ansi.AUTO));
    cl.setCaseInsensitiveEnumValuesAllowed(false);
    cl.setAbbreviatedOptionsAllowed(false);
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          if (ex instanceof StrataException se) {
            io.out().flush();
            io.err().println(name + ": " + TerminalText.escape(se.getMessage()));
            io.err().flush();
            return se.exitCode();
          }
          throw ex;
        });
    cl.setParameterExceptionHandler(
        (ex, args) -> {
          io.err().println(name + ": " + TerminalText.escape(ex.getMessage()));
          CommandLine.UnmatchedArgumentException.printSuggestions(ex, io.err());
          io.err().println("Try '" + name + " --help' for more information.");
          io.err().flush();
          return ExitCodes.USAGE;
        });
    return cl;
  }
}
