package dev.strata.cli;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.text.TerminalText;
import dev.strata.engine.text.Wrap;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * What a command talks to: its streams, its environment and its terminal. The real commands use
 * {@link #system()}; tests pass their own (captured writers, an explicit environment, never the
 * real HOME).
 *
 * @param in standard input (the wizard reads it when there is no terminal)
 * @param out standard output: the command's own output (configs, plans, JSON documents)
 * @param err standard error: refusals, warnings, notes
 * @param env the process environment (STRATA_CONFIG, NO_COLOR, TERM, XDG_CONFIG_HOME, HOME ...)
 * @param interactive whether a terminal is attached (the wizard may ask; colour may be used)
 * @param halt exits the process at once with a code (the launcher's second Ctrl-C); {@code
 *     Runtime::halt} for the real commands
 */
public record Io(
    InputStream in,
    PrintWriter out,
    PrintWriter err,
    Map<String, String> env,
    boolean interactive,
    IntConsumer halt) {

  /** This process's streams, environment and terminal. */
  public static Io system() {
    return new Io(
        System.in,
        // on the descriptor, not System.out: a PrintStream swallows write errors, and --print to a
        // full disk must fail (PrintWriter.checkError sees them)
        new PrintWriter(
            new java.io.OutputStreamWriter(
                new java.io.FileOutputStream(java.io.FileDescriptor.out), StandardCharsets.UTF_8),
            true),
        new PrintWriter(System.err, true, StandardCharsets.UTF_8),
        System.getenv(),
        System.console() != null && System.console().isTerminal(),
        code -> Runtime.getRuntime().halt(code));
  }

  /**
   * Streams for a test or an embedding: no standard input, and a halt that throws (a command that
   * halts in a test is a bug the test should see).
   */
  public static Io of(PrintWriter out, PrintWriter err, Map<String, String> env, boolean terminal) {
    return of(InputStream.nullInputStream(), out, err, env, terminal);
  }

  /** As {@link #of(PrintWriter, PrintWriter, Map, boolean)}, with this standard input. */
  public static Io of(
      InputStream in, PrintWriter out, PrintWriter err, Map<String, String> env, boolean terminal) {
    return new Io(
        in,
        out,
        err,
        env,
        terminal,
        code -> {
          throw new IllegalStateException("halt(" + code + ") outside a real process");
        });
  }

  /**
   * Prints a refusal as its one line {@code <command>: <message>} on stderr (after what stdout
   * holds) and returns its exit code: every command's rule for a {@link StrataException}.
   */
  public int report(String command, StrataException e) {
    out.flush();
    err.println(command + ": " + TerminalText.escape(e.getMessage()));
    err.flush();
    return e.exitCode();
  }

  /**
   * How every command's run ends, whichever path it took (fast path, picocli, help, a subcommand):
   * standard output is flushed and, when a write to it failed (a full disk, {@code > /dev/full}, a
   * closed pipe; {@link PrintWriter#checkError} keeps the failure), a run that would have exited 0
   * says so in one line on stderr and exits {@link ExitCodes#USAGE} instead of reporting success
   * with its output lost. A run that already failed keeps its code and its own line.
   *
   * @param code the exit code the command returned
   * @return the process's exit code
   */
  public int finish(String command, int code) {
    out.flush();
    if (code != ExitCodes.OK || !out.checkError()) {
      return code;
    }
    err.println(
        command
            + ": cannot write to standard output (disk full, or the reader went away?): its"
            + " output was lost");
    err.flush();
    return ExitCodes.USAGE;
  }

  /**
   * Columns to wrap text at: {@link Integer#MAX_VALUE} (whole lines) without a terminal, so a pipe,
   * a file and the golden files get every line whole; on a terminal {@code COLUMNS} when it is a
   * positive number, else the terminal's width, else {@link Wrap#FALLBACK_WIDTH} ({@link
   * TerminalWidth}).
   */
  public int width() {
    if (!interactive) {
      return Integer.MAX_VALUE;
    }
    int env = TerminalWidth.fromEnv(this.env);
    return Wrap.width(env > 0 ? env : TerminalWidth.systemColumns());
  }

  /**
   * Whether output may be coloured: only on a terminal, and never with {@code NO_COLOR} set to a
   * non-empty value (https://no-color.org: "when present and not an empty string") or {@code
   * TERM=dumb}. The one rule for picocli's help and the wizard's and the probe's styles.
   */
  public boolean colour() {
    return colour(env, interactive);
  }

  /** {@link #colour()} for an environment and whether a terminal is attached. */
  public static boolean colour(Map<String, String> env, boolean terminal) {
    String noColor = env.get("NO_COLOR");
    return terminal && (noColor == null || noColor.isEmpty()) && !"dumb".equals(env.get("TERM"));
  }
}
