package dev.strata.setup.prompt;

import dev.strata.cli.SignalTrap;
import dev.strata.engine.text.Wrap;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
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
 *
 * <p>Signals (docs/RELIABILITY.md "The wizard and signals"). On the system terminal the prompter
 * owns SIGHUP and SIGTERM (and SIGINT between questions; at a question JLine's line reader has it):
 * the first one makes the question in progress end as a cancel ({@link #onSignal}: the line reader
 * is interrupted, every 100 ms until the main thread has closed the prompter), so the wizard
 * unwinds through its {@code finally}, the terminal is restored there, nothing is written and the
 * exit code is 128 + the signal. Left to the JVM, such a signal would run JLine's shutdown hook
 * (which restores the terminal) concurrently with the main thread, which could still put it back
 * into raw mode as it entered or left a question. A main thread that has not closed the prompter
 * {@link #GRACE_MS} after the signal, or a second signal, has the terminal restored from the
 * signal's thread and the JVM halted with that code. {@link #close()} is idempotent and
 * thread-safe: the first caller restores, any other returns at once.
 */
public final class JLinePrompter implements Prompter {
  /** How long a signal waits for the main thread to unwind before it restores and halts. */
  static final long GRACE_MS = 3_000;

  private static final long RAISE_EVERY_MS = 100;

  private final Terminal terminal;
  private final LineReader reader;
  private final Style style;
  private final Completer pathCompleter;
  private volatile Completer current = NO_COMPLETION;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Size reportedSize;
  private final IntConsumer exit;
  private final IntConsumer halt;
  private final List<SignalTrap.Installed> traps = new CopyOnWriteArrayList<>();

  /** The first signal that ends the wizard (its number), or 0. */
  private final AtomicInteger signal = new AtomicInteger();

  /** The thread raising the line reader's interrupt for {@link #onSignal} (not a new signal). */
  private volatile Thread raiser;

  private static final Completer NO_COMPLETION = (r, line, candidates) -> {};

  /**
   * @param terminal the terminal to talk to; closed by {@link #close()}
   * @param env the environment (NO_COLOR)
   */
  public JLinePrompter(Terminal terminal, Map<String, String> env) {
    this(
        terminal,
        env,
        code -> Runtime.getRuntime().exit(code),
        code -> Runtime.getRuntime().halt(code));
  }

  /**
   * @param exit ends the process with a code as the JVM would (its shutdown hooks run): a signal
   *     after the wizard closed the terminal ({@link Runtime#exit}; tests record it)
   * @param halt ends the process with a code when the main thread does not unwind after a signal
   *     ({@link Runtime#halt}; tests record it)
   */
  JLinePrompter(Terminal terminal, Map<String, String> env, IntConsumer exit, IntConsumer halt) {
    this.terminal = terminal;
    this.exit = exit;
    this.halt = halt;
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

  /**
   * The process's terminal (JLine picks the best provider: FFM, JNI or exec), with SIGHUP, SIGTERM
   * and SIGINT handled by the prompter (above). A signal that arrives while the terminal is being
   * opened, before the prompter can take it, exits as the JVM would (nothing has been changed yet).
   */
  public static JLinePrompter system(Map<String, String> env) throws IOException {
    AtomicReference<JLinePrompter> owner = new AtomicReference<>();
    IntConsumer handler =
        n -> {
          JLinePrompter p = owner.get();
          if (p == null) {
            Runtime.getRuntime().exit(128 + n);
          } else {
            p.onSignal(n);
          }
        };
    List<SignalTrap.Installed> installed =
        List.of(
            SignalTrap.install(SignalTrap.Sig.HUP, handler),
            SignalTrap.install(SignalTrap.Sig.TERM, handler));
    Terminal t;
    try {
      t =
          TerminalBuilder.builder()
              .system(true)
              .name("strata-setup")
              .encoding(StandardCharsets.UTF_8)
              .build();
    } catch (IOException | RuntimeException e) {
      installed.forEach(SignalTrap.Installed::close);
      throw e;
    }
    JLinePrompter p = new JLinePrompter(t, env);
    p.traps.addAll(installed);
    // SIGINT between questions (at a question the line reader installs its own, then puts this
    // back)
    t.handle(
        Terminal.Signal.INT,
        s -> {
          if (Thread.currentThread() != p.raiser) {
            handler.accept(SignalTrap.Sig.INT.number());
          }
        });
    owner.set(p);
    return p;
  }

  /**
   * A signal that ends the wizard ({@code n}: 1, 2 or 15), on the signal's own thread. The first
   * one interrupts the question in progress until the main thread has closed the prompter (at most
   * {@link #GRACE_MS}); {@link #readLine} then throws {@link WizardCancelled} with 128 + n. A
   * second signal, or a main thread that does not unwind, restores the terminal here and halts.
   */
  void onSignal(int n) {
    if (closed.get()) {
      // the wizard is over (the config is being written, atomically): what the JVM would do
      exit.accept(128 + n);
      return;
    }
    if (!signal.compareAndSet(0, n)) {
      close();
      halt.accept(128 + n);
      return;
    }
    long deadline = System.nanoTime() + GRACE_MS * 1_000_000;
    raiser = Thread.currentThread();
    try {
      while (!closed.get() && System.nanoTime() < deadline) {
        try {
          terminal.raise(Terminal.Signal.INT); // the line reader's interrupt, if it is reading
        } catch (RuntimeException | java.io.IOError e) {
          // a terminal that went away: the main thread's read ends by itself
        }
        try {
          Thread.sleep(RAISE_EVERY_MS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    } finally {
      raiser = null;
    }
    if (!closed.get()) {
      close();
      halt.accept(128 + n);
    }
  }

  /** The number of the first signal that ended the wizard, or 0 (for tests). */
  int signalled() {
    return signal.get();
  }

  /** The signal that cancelled the wizard, as a {@link WizardCancelled}; null when none came. */
  private WizardCancelled bySignal() {
    int n = signal.get();
    if (n == 0) {
      return null;
    }
    SignalTrap.Sig sig = SignalTrap.Sig.of(n);
    return new WizardCancelled(
        sig == SignalTrap.Sig.INT ? "Ctrl-C" : "SIG" + (sig == null ? n : sig.name()), 128 + n);
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
    WizardCancelled early = bySignal();
    if (early != null || closed.get()) {
      throw early != null ? early : new WizardCancelled("the terminal was closed");
    }
    current = question instanceof Question.PathAnswer ? pathCompleter : NO_COMPLETION;
    try {
      String line = reader.readLine(prompt);
      WizardCancelled late = bySignal();
      if (late != null) {
        throw late; // the signal came as the line was entered: it still cancels
      }
      return line == null ? "" : line;
    } catch (UserInterruptException e) {
      WizardCancelled s = bySignal();
      throw s != null ? s : new WizardCancelled("Ctrl-C");
    } catch (EndOfFileException e) {
      WizardCancelled s = bySignal();
      throw s != null ? s : new WizardCancelled("end of input");
    } catch (java.io.IOError e) {
      // the terminal went away under the read (EIO after a hang-up)
      WizardCancelled s = bySignal();
      throw s != null ? s : new WizardCancelled("the terminal went away");
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

  /**
   * Restores the terminal (its attributes as they were when the prompter opened it, its reported
   * size) and puts back the signal handlers the prompter took. Idempotent and thread-safe: the main
   * thread's {@code finally}, a signal's thread and JLine's own shutdown hook may all get here; the
   * first of this class's callers restores, the others return at once.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      terminal.writer().flush();
      if (reportedSize != null) {
        terminal.setSize(reportedSize);
      }
      terminal.close();
    } catch (IOException | RuntimeException | java.io.IOError e) {
      // closing restores the terminal's attributes; nothing else to do if it fails
    } finally {
      traps.forEach(SignalTrap.Installed::close);
    }
  }
}
