package dev.strata.setup.prompt;

import dev.strata.engine.text.Wrap;

/**
 * Asks {@link Question}s. Implementations supply the line I/O ({@link JLinePrompter} on a terminal,
 * {@link ScriptedPrompter} in tests); the asking rules live here, once: every question shows its
 * default, Enter accepts it, a wrong answer is asked again with the reason, Ctrl-C or Ctrl-D throw
 * {@link WizardCancelled}.
 */
public interface Prompter extends AutoCloseable {

  /**
   * Reads one line after showing {@code prompt}.
   *
   * @param question the question being asked (a path question gets file-name completion)
   * @throws WizardCancelled on Ctrl-C or end of input
   */
  String readLine(String prompt, Question<?> question);

  /** Shows one line of text as it is (the caller wraps; see {@link #say}). */
  void println(String line);

  /** Columns to wrap at: the terminal's width, {@link Wrap#FALLBACK_WIDTH} when it reports none. */
  default int width() {
    return Wrap.FALLBACK_WIDTH;
  }

  /** Shows text wrapped to {@link #width()} (each line; a word or path is never split). */
  default void say(String text) {
    for (String line : text.split("\n", -1)) {
      for (String l : Wrap.line(line, width())) {
        println(l);
      }
    }
  }

  /** The colours in use. */
  Style style();

  /** Restores the terminal. Never throws. */
  @Override
  void close();

  /** Asks until the answer is good; returns it. There is nothing to go back to. */
  default <T> T ask(Question<T> q) {
    return ask(q, false);
  }

  /**
   * Asks until the answer is good; returns it.
   *
   * @param canGoBack true when {@code <} or {@code back} returns to the previous question
   * @throws WizardBack when {@code canGoBack} and the answer is {@code <} or {@code back}
   */
  default <T> T ask(Question<T> q, boolean canGoBack) {
    Style st = style();
    for (String line : q.body()) {
      say(line);
    }
    T def = q.defaultValue();
    String prompt =
        st.bold(q.prompt()) + (def == null ? "" : " " + st.dim("[" + q.show(def) + "]")) + ": ";
    while (true) {
      String input = readLine(prompt, q).strip();
      if (WizardBack.isBack(input)) {
        if (canGoBack) {
          throw new WizardBack();
        }
        say(st.error("  there is no question before this one") + " — answer it, or Ctrl-C to stop");
        continue;
      }
      Question.Parsed<T> parsed;
      if (input.isEmpty()) {
        if (def == null) {
          say(st.error("  an answer is needed here (" + q.flag() + ")"));
          continue;
        }
        // The default goes through the same check as a typed answer (a default path may be gone).
        parsed =
            q instanceof Question.PathAnswer ? q.parse(q.show(def)) : new Question.Parsed.Ok<>(def);
      } else {
        parsed = q.parse(input);
      }
      switch (parsed) {
        case Question.Parsed.Ok<T> ok -> {
          return ok.value();
        }
        case Question.Parsed.Bad<T> bad -> say(st.error("  " + bad.reason()) + " — try again");
      }
    }
  }
}
