package dev.strata.setup.prompt;

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

  /** Shows one line of text. */
  void println(String line);

  /** The colours in use. */
  Style style();

  /** Restores the terminal. Never throws. */
  @Override
  void close();

  /** Asks until the answer is good; returns it. */
  default <T> T ask(Question<T> q) {
    Style st = style();
    for (String line : q.body()) {
      println(line);
    }
    T def = q.defaultValue();
    String prompt =
        st.bold(q.prompt()) + (def == null ? "" : " " + st.dim("[" + q.show(def) + "]")) + ": ";
    while (true) {
      String input = readLine(prompt, q).strip();
      Question.Parsed<T> parsed;
      if (input.isEmpty()) {
        if (def == null) {
          println(st.error("  an answer is needed here (" + q.flag() + ")"));
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
        case Question.Parsed.Bad<T> bad -> println(st.error("  " + bad.reason()) + " — try again");
      }
    }
  }
}
