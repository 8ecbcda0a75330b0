package dev.strata.cli;

import java.util.List;
import java.util.Map;
import org.jline.terminal.spi.SystemStream;
import org.jline.terminal.spi.TerminalProvider;

/**
 * How wide the terminal is that a command's standard output goes to, for text that wraps (the
 * memory plan, its glossary): the {@code COLUMNS} environment variable when it is a positive number
 * (POSIX: it overrides the terminal's own width), else what JLine's terminal providers read from
 * the terminal (FFM's {@code ioctl(TIOCGWINSZ)}, else {@code stty} through the exec provider), else
 * {@link dev.strata.engine.text.Wrap#FALLBACK_WIDTH} for a terminal that reports 0 columns. The
 * wizard reads the same size from its own JLine terminal (setup's JLinePrompter).
 */
public final class TerminalWidth {
  private TerminalWidth() {}

  /** JLine's providers in the order tried: the JDK's FFM first (no child process), then stty. */
  private static final List<String> PROVIDERS = List.of("ffm", "exec");

  /** {@code COLUMNS} when it is a positive decimal number, else 0. */
  static int fromEnv(Map<String, String> env) {
    String c = env.get("COLUMNS");
    if (c == null || c.isEmpty() || c.length() > 5) {
      return 0;
    }
    for (int i = 0; i < c.length(); i++) {
      if (c.charAt(i) < '0' || c.charAt(i) > '9') {
        return 0;
      }
    }
    return Integer.parseInt(c);
  }

  /**
   * The columns of the terminal this process's standard output is on, 0 when it is not on one or no
   * provider can tell. Asks the terminal itself: callers decide first whether there is one ({@link
   * Io#interactive()}).
   */
  static int systemColumns() {
    if (System.console() == null || !System.console().isTerminal()) {
      return 0;
    }
    for (String name : PROVIDERS) {
      try {
        TerminalProvider p = TerminalProvider.load(name);
        return p.isSystemStream(SystemStream.Output)
            ? Math.max(0, p.systemStreamWidth(SystemStream.Output))
            : 0;
      } catch (Exception | LinkageError e) {
        // this provider cannot run here (no FFM access, no stty): the next one
      }
    }
    return 0;
  }
}
