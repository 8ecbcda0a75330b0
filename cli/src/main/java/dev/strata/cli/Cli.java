package dev.strata.cli;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.Suggest;
import dev.strata.engine.text.TerminalText;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The one configuration of every Strata command line ({@code strata-setup}, {@code strata-launch}
 * and {@code strata-launch demo}): output through the {@link Io}'s writers, colour by {@link
 * Io#colour()}, exact option names (no abbreviations, case-sensitive values), and one error rule:
 *
 * <ul>
 *   <li>a {@link StrataException} is its one line {@code <command>: <message>} on stderr and its
 *       exit code ({@link ExitCodes}); never a stack trace;
 *   <li>a usage error is one line {@code <command>: <what>} — for an unknown option or command with
 *       the nearest known name ({@link Suggest}, the same "did you mean" as the config's unknown
 *       keys and flags) — then {@code Try '<command> [sub] --help' for more information.}, exit 2.
 * </ul>
 */
public final class Cli {
  private Cli() {}

  /**
   * Applies the shared settings to {@code cl} and its subcommands (call it after the subcommands
   * are added). The command's name in messages is {@code cl}'s command name.
   *
   * @return {@code cl}
   */
  public static CommandLine configure(CommandLine cl, Io io) {
    String name = cl.getCommandName();
    cl.setOut(io.out());
    cl.setErr(io.err());
    cl.setResourceBundle(new Texts());
    cl.setColorScheme(
        CommandLine.Help.defaultColorScheme(
            io.colour() ? CommandLine.Help.Ansi.ON : CommandLine.Help.Ansi.OFF));
    cl.setCaseInsensitiveEnumValuesAllowed(false);
    cl.setAbbreviatedOptionsAllowed(false);
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          if (ex instanceof StrataException se) {
            return report(se, name, io);
          }
          throw ex;
        });
    cl.setParameterExceptionHandler((ex, args) -> usage(ex, name, io));
    return cl;
  }

  /**
   * Prints a refusal as its one line and returns its exit code: what every command does with a
   * {@link StrataException}, whether picocli or a command's own fast path caught it.
   */
  public static int report(StrataException e, String command, Io io) {
    return io.report(command, e);
  }

  private static int usage(CommandLine.ParameterException ex, String name, Io io) {
    if (ex.getCause() instanceof CliSpec.OutOfRange r && ex.getArgSpec() instanceof OptionSpec o) {
      // a number out of range: one line, as the range refusals of the flag table read
      io.err().println(name + ": " + o.longestName() + ": " + TerminalText.escape(r.getMessage()));
      io.err().flush();
      return ExitCodes.USAGE;
    }
    io.err().println(name + ": " + message(ex));
    CommandSpec spec = ex.getCommandLine().getCommandSpec();
    io.err().println("Try '" + spec.qualifiedName() + " --help' for more information.");
    io.err().flush();
    return ExitCodes.USAGE;
  }

  /**
   * picocli's "--out=FILE, --print are mutually exclusive (specify only one)" in the options' own
   * names: "--out and --print cannot be used together: give one of them".
   */
  static String together(String m) {
    int at = m.indexOf(" are mutually exclusive");
    if (at < 0) {
      return m;
    }
    List<String> names = new ArrayList<>();
    for (String arg : m.substring(0, at).split(", ")) {
      int eq = arg.indexOf('=');
      names.add(eq > 0 ? arg.substring(0, eq) : arg);
    }
    return String.join(" and ", names) + " cannot be used together: give one of them";
  }

  /**
   * The first line of a usage error: picocli's message, except for an unknown option or command,
   * which is named (control characters made visible, TerminalText) with the nearest known name of
   * the command it was given to.
   */
  static String message(CommandLine.ParameterException ex) {
    if (!(ex instanceof CommandLine.UnmatchedArgumentException u) || u.getUnmatched().isEmpty()) {
      // the line already starts "<command>: ": picocli's own "Error: " is cut
      String m = ex.getMessage() == null ? "" : ex.getMessage().replaceFirst("^Error: ", "");
      if (ex instanceof CommandLine.MutuallyExclusiveArgsException) {
        m = together(m);
      }
      return TerminalText.escape(m);
    }
    String token = u.getUnmatched().getFirst();
    CommandSpec spec = ex.getCommandLine().getCommandSpec();
    List<String> known = new ArrayList<>();
    String what;
    String typed = token;
    if (token.startsWith("-")) {
      what = "unknown option";
      int eq = token.indexOf('=');
      typed = eq > 0 ? token.substring(0, eq) : token;
      for (OptionSpec o : spec.options()) {
        if (!o.hidden()) {
          known.addAll(List.of(o.names()));
        }
      }
    } else if (!spec.subcommands().isEmpty() && spec.positionalParameters().isEmpty()) {
      what = "unknown command";
      known.addAll(spec.subcommands().keySet());
    } else {
      what = "unexpected argument";
    }
    String hint = Suggest.didYouMean(typed, known);
    String flag = Suggest.ours(typed);
    if (hint.isEmpty() && what.equals("unknown option") && EngineFlags.lookup(flag) != null) {
      // an engine flag given to the command: it belongs to the engine's argv, which the config
      // holds
      hint = " (" + flag + " is an engine flag: it goes in the config's args, docs/CONFIG.md)";
    }
    return what + " '" + TerminalText.escape(token) + "'" + hint;
  }
}
