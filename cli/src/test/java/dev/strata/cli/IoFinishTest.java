package dev.strata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Io.finish: a lost standard output turns a success into exit 2 with one line, nothing else. */
class IoFinishTest {
  private final StringWriter err = new StringWriter();

  private Io io(OutputStream out) {
    return Io.of(new PrintWriter(out), new PrintWriter(err), Map.of(), false);
  }

  /** Standard output as /dev/full: every write fails. */
  private static final OutputStream FULL =
      new OutputStream() {
        @Override
        public void write(int b) throws IOException {
          throw new IOException("No space left on device");
        }
      };

  @Test
  void aSuccessWhoseOutputWasLostIsExit2WithOneLine() {
    Io io = io(FULL);
    io.out().print("plan: …");
    assertEquals(2, io.finish("strata-launch", 0));
    assertEquals(
        "strata-launch: cannot write to standard output (disk full, or the reader went away?):"
            + " its output was lost\n",
        err.toString().replace(System.lineSeparator(), "\n"));
  }

  @Test
  void aFailureKeepsItsCodeAndItsOwnLine() {
    Io io = io(FULL);
    io.out().print("x");
    assertEquals(3, io.finish("strata-launch", 3));
    assertEquals("", err.toString());
  }

  @Test
  void anOutputThatTookItChangesNothing() {
    Io io = io(OutputStream.nullOutputStream());
    io.out().print("x");
    assertEquals(0, io.finish("strata-setup", 0));
    assertEquals("", err.toString());
  }
}
