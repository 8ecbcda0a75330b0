package dev.strata.setup;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import picocli.CommandLine;

/**
 * The single factory of the {@code strata-setup} command line, used by {@link SetupMain} and by
 * tests. Output goes through the injected writers so tests capture it; a {@link StrataException}
 * becomes its one-line message and exit code, never a stack trace.
 */
public final class SetupCli {
  private SetupCli() {}

  /**
   * What a command talks to: its streams and its environment. Tests pass their own.
   *
   * @param in standard input (the wizard reads it when there is no terminal)
   * @param out standard output
   * @param err standard error
   * @param env the process environment (STRATA_CONFIG, NO_COLOR, XDG_CONFIG_HOME, HOME ...)
   * @param interactive whether a terminal is attached (the wizard may ask)
   */
  public record Io(
      InputStream in,
      PrintWriter out,
      PrintWriter err,
      Map<String, String> env,
      boolean interactive) {
    public static Io system() {
      return new Io(
          System.in,
          new PrintWriter(System.out, true, StandardCharsets.UTF_8),
          new PrintWriter(System.err, true, StandardCharsets.UTF_8),
          System.getenv(),
          System.console() != null && System.console().isTerminal());
    }
  }

  public static CommandLine create(Io io) {
    CommandLine cl = new CommandLine(new SetupCommand(io));
    cl.setOut(io.out());
    cl.setErr(io.err());
    cl.setCaseInsensitiveEnumValuesAllowed(false);
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          if (ex instanceof StrataException se) {
            io.err().println("strata-setup: " + se.getMessage());
            io.err().flush();
            return se.exitCode();
          }
          throw ex;
        });
    cl.setParameterExceptionHandler(
        (ex, args) -> {
          io.err().println("strata-setup: " + ex.getMessage());
          CommandLine.UnmatchedArgumentException.printSuggestions(ex, io.err());
          io.err().println("Try 'strata-setup --help' for more information.");
          io.err().flush();
          return ExitCodes.USAGE;
        });
    return cl;
  }
}
