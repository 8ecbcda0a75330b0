package dev.strata.setup.prompt;

import dev.strata.engine.text.Wrap;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.jline.builtins.Completers;
import org.jline.reader.Candidate;
import org.jline.reader.Completer;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.ParsedLine;
import org.jline.reader.UserInterruptException;
import org.jline.reader.impl.DefaultParser;
import org.jline.terminal.Attributes;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.terminal.impl.DumbTerminal;

/**
 * The terminal prompter: a JLine {@link LineReader} (line editing, history within the session, tab
 * completion of file names for path questions). Ctrl-C ({@link UserInterruptException}) and Ctrl-D
 * ({@link EndOfFileException}) become {@link WizardCancelled}; {@link #close()} restores the
 * terminal and is called in a {@code finally} by the wizard's owner.
 */
public final class JLinePrompter implements Prompter {
  private final Terminal terminal;
  private final LineReader reader;
  private final Style style;
  private final Completer pathCompleter;
  private Completer current = NO_COMPLETION;
  private boolean closed;
  private final Size reportedSize;

  private static final Completer NO_COMPLETION = (r, line, candidates) -> {};

  /**
   * @param terminal the terminal to talk to; closed by {@link #close()}
   * @param env the environment (NO_COLOR)
   */
  public JLinePrompter(Terminal terminal, Map<String, String> env) {
    this.terminal = terminal;
    // A terminal that reports 0 columns (a serial console, `stty cols 0`, some CI ptys) would have
    // the line reader draw every prompt as an ellipsis: give it the fallback width while the wizard
    // runs, and put the reported size back in close().
    Size size = terminal.getSize();
    boolean dumb =
        Terminal.TYPE_DUMB.equals(terminal.getType())
            || Terminal.TYPE_DUMB_COLOR.equals(terminal.getType());
    if (size.getColumns() <= 0 && !dumb) {
      this.reportedSize = new Size(size.getColumns(), size.getRows());
      terminal.setSize(new Size(Wrap.FALLBACK_WIDTH, size.getRows() > 0 ? size.getRows() : 24));
    } else {
      this.reportedSize = null;
    }
    boolean realTerminal =
        !Terminal.TYPE_DUMB.equals(terminal.getType())
            && !Terminal.TYPE_DUMB_COLOR.equals(terminal.getType());
    this.style = Style.of(env, realTerminal);
    Completer paths = new Completers.FileNameCompleter();
    DefaultParser parser = new DefaultParser();
    // A path is one word even with spaces ("Application Support"); no shell quoting rules.
    parser.setEscapeChars(new char[0]);
    this.reader =
        LineReaderBuilder.builder()
            .terminal(terminal)
            .appName("strata-setup")
            .parser(parser)
            .completer(
                (LineReader r, ParsedLine line, List<Candidate> candidates) ->
                    current.complete(r, line, candidates))
            .option(LineReader.Option.AUTO_FRESH_LINE, true)
            .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
            .variable(LineReader.HISTORY_SIZE, 0)
            .build();
    this.pathCompleter = paths;
  }

  /** The process's terminal (JLine picks the best provider: FFM, JNI or exec). */
  public static JLinePrompter system(Map<String, String> env) throws IOException {
    Terminal t =
        TerminalBuilder.builder()
            .system(true)
            .name("strata-setup")
            .encoding(StandardCharsets.UTF_8)
            .build();
    return new JLinePrompter(t, env);
  }

  /**
   * A dumb terminal over streams: what tests drive, as JLine's own tests do. It gets a real tty's
   * signal characters (ISIG, ^C = VINTR, ^D = VEOF), so a ^C byte in the input is Ctrl-C, as on a
   * terminal.
   */
  public static JLinePrompter dumb(InputStream in, OutputStream out, Map<String, String> env)
      throws IOException {
    DumbTerminal t = new DumbTerminal(in, out);
    Attributes a = t.getAttributes();
    a.setLocalFlag(Attributes.LocalFlag.ISIG, true);
    a.setControlChar(Attributes.ControlChar.VINTR, 3);
    a.setControlChar(Attributes.ControlChar.VEOF, 4);
    // Every signal character a tty has: an unset one reads as -1, which is also end of input,
    // and the terminal would then take EOF for ^Z and wait forever.
    a.setControlChar(Attributes.ControlChar.VQUIT, 28);
    a.setControlChar(Attributes.ControlChar.VSUSP, 26);
    a.setControlChar(Attributes.ControlChar.VSTATUS, 20);
    t.setAttributes(a);
    return new JLinePrompter(t, env);
  }

  @Override
  public String readLine(String prompt, Question<?> question) {
    current = question instanceof Question.PathAnswer ? pathCompleter : NO_COMPLETION;
    try {
      String line = reader.readLine(prompt);
      return line == null ? "" : line;
    } catch (UserInterruptException e) {
      throw new WizardCancelled("Ctrl-C");
    } catch (EndOfFileException e) {
      throw new WizardCancelled("end of input");
    } finally {
      current = NO_COMPLETION;
    }
  }

  @Override
  public void println(String line) {
    terminal.writer().println(line);
    terminal.writer().flush();
  }

  @Override
  public int width() {
    return Wrap.width(terminal.getWidth());
  }

  @Override
  public Style style() {
    return style;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      terminal.writer().flush();
      if (reportedSize != null) {
        terminal.setSize(reportedSize);
      }
      terminal.close();
    } catch (IOException e) {
      // closing restores the terminal's attributes; nothing else to do if it fails
    }
  }
}
