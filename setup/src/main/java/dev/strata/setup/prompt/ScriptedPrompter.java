package dev.strata.setup.prompt;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * A prompter that answers from a script, for tests and for {@code --answers}-like replays. Each
 * entry is one typed line ("" is Enter); {@link #CTRL_C} cancels as Ctrl-C does; running out of
 * lines is end of input (Ctrl-D). Everything shown is kept in {@link #transcript()}.
 */
public final class ScriptedPrompter implements Prompter {
  /** A script entry that presses Ctrl-C. */
  public static final String CTRL_C = "\u0003";

  private final Deque<String> lines;
  private final StringBuilder transcript = new StringBuilder();

  public ScriptedPrompter(List<String> lines) {
    this.lines = new ArrayDeque<>(lines);
  }

  @Override
  public String readLine(String prompt, Question<?> question) {
    transcript.append(prompt);
    String next = lines.pollFirst();
    if (next == null) {
      transcript.append("^D\n");
      throw new WizardCancelled("end of input");
    }
    if (CTRL_C.equals(next)) {
      transcript.append("^C\n");
      throw new WizardCancelled("Ctrl-C");
    }
    transcript.append(next).append('\n');
    return next;
  }

  @Override
  public void println(String line) {
    transcript.append(line).append('\n');
  }

  @Override
  public Style style() {
    return Style.PLAIN;
  }

  @Override
  public void close() {
    // nothing to release: the script is in memory
  }

  public String transcript() {
    return transcript.toString();
  }

  /** Lines not consumed. */
  public int remaining() {
    return lines.size();
  }
}
