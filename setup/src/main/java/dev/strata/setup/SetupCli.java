package dev.strata.setup;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.host.ProbeResult;
import dev.strata.engine.text.TerminalText;
import dev.strata.metal.HostProbe;
import dev.strata.setup.prompt.JLinePrompter;
import dev.strata.setup.prompt.Prompter;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
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
          // on the descriptor, not System.out: a PrintStream swallows write errors, and
          // --print to a full disk must fail (PrintWriter.checkError sees them)
          new PrintWriter(
              new java.io.OutputStreamWriter(
                  new java.io.FileOutputStream(java.io.FileDescriptor.out), StandardCharsets.UTF_8),
              true),
          new PrintWriter(System.err, true, StandardCharsets.UTF_8),
          System.getenv(),
          System.console() != null && System.console().isTerminal());
    }
  }

  /** Opens the wizard's prompter; the command closes it in a {@code finally}. */
  @FunctionalInterface
  public interface PrompterFactory {
    Prompter open(Io io) throws IOException;
  }

  /**
   * What the command knows of the machine it runs on, beyond its streams: injected so tests stay
   * hermetic.
   *
   * @param osName the {@code os.name} property (config path rule, library suffix)
   * @param workingDir where relative paths start
   * @param strataHome the distribution's root ({@code -Dstrata.home}), or null
   * @param strataRoot the source tree's root ({@code -Dstrata.root}), or null
   * @param probe the live host probe (used when no {@code --host-file} is given), given the
   *     environment it reads ({@code STRATA_PROBE}, the cache folder's HOME / XDG_CACHE_HOME)
   * @param prompter opens the terminal prompter of the wizard
   */
  public record Machine(
      String osName,
      Path workingDir,
      Path strataHome,
      Path strataRoot,
      Function<Map<String, String>, ProbeResult> probe,
      PrompterFactory prompter) {

    /** This process's machine: system properties, the live probe, the system terminal. */
    public static Machine system() {
      return new Machine(
          System.getProperty("os.name"),
          Path.of("").toAbsolutePath(),
          pathProp("strata.home"),
          pathProp("strata.root"),
          HostProbe::probe,
          io -> JLinePrompter.system(io.env()));
    }

    private static Path pathProp(String name) {
      String v = System.getProperty(name);
      return v == null || v.isBlank() ? null : Path.of(v);
    }
  }

  public static CommandLine create(Io io) {
    return create(io, Machine.system());
  }

  public static CommandLine create(Io io, Machine machine) {
    CommandLine cl = new CommandLine(new SetupCommand(io, machine));
    cl.setOut(io.out());
    cl.setErr(io.err());
    cl.setCaseInsensitiveEnumValuesAllowed(false);
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          if (ex instanceof StrataException se) {
            io.err().println("strata-setup: " + TerminalText.escape(se.getMessage()));
            io.err().flush();
            return se.exitCode();
          }
          throw ex;
        });
    cl.setParameterExceptionHandler(
        (ex, args) -> {
          io.err().println("strata-setup: " + TerminalText.escape(ex.getMessage()));
          if (ex instanceof CommandLine.UnmatchedArgumentException u) {
            List<String> s = u.getSuggestions();
            if (!s.isEmpty()) {
              io.err()
                  .println(
                      "strata-setup: did you mean "
                          + TerminalText.escape(String.join(" or ", s))
                          + "?");
            }
          }
          io.err().println("Try 'strata-setup --help' for more information.");
          io.err().flush();
          return ExitCodes.USAGE;
        });
    return cl;
  }
}
