package dev.strata.setup.prompt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.jline.terminal.Size;
import org.jline.terminal.impl.ExternalTerminal;
import org.junit.jupiter.api.Test;

class JLinePrompterTest {
  /**
   * A real (not dumb) terminal that reports 0 columns: the prompt is drawn in full at 80 columns
   * (JLine drew it as an ellipsis at 0), and the reported size is put back on close.
   */
  @Test
  void aTerminalReportingZeroColumnsGetsTheFallbackWidth() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ExternalTerminal t =
        new ExternalTerminal(
            "test",
            "xterm",
            new ByteArrayInputStream("yes\r".getBytes(StandardCharsets.UTF_8)),
            out,
            StandardCharsets.UTF_8);
    t.setSize(new Size(0, 0));
    JLinePrompter p = new JLinePrompter(t, Map.of("NO_COLOR", "1"));
    assertEquals(80, p.width());
    boolean yes = p.ask(new Question.YesNo("--yes", "Write /tmp/x/engine.yaml?", List.of(), true));
    assertTrue(yes);
    String shown = out.toString(StandardCharsets.UTF_8);
    assertTrue(shown.contains("Write /tmp/x/engine.yaml?"), shown);
    p.close();
    assertEquals(0, t.getSize().getColumns(), "the reported size is restored");
  }

  @Test
  void backIsAnAnswerOnlyWhereThereIsAQuestionBefore() {
    ScriptedPrompter s = new ScriptedPrompter(List.of("<", "back"));
    Question.YesNo q = new Question.YesNo("--yes", "Go?", List.of(), true);
    try {
      s.ask(q, true);
      throw new AssertionError("no WizardBack");
    } catch (WizardBack expected) {
      // <
    }
    ScriptedPrompter first = new ScriptedPrompter(List.of("back", "no"));
    assertEquals(false, first.ask(q));
    assertTrue(first.transcript().contains("there is no question before this one"));
  }
}
