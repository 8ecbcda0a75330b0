package dev.strata.launcher.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine's lines for a person on a terminal: sizes as the plan shows them, one progress line.
 */
class EngineLinesTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private final String nl = System.lineSeparator();

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "memory: peak_rss_bytes=10672857088 allocated_bytes=1024"
            + "|memory: peak_rss_bytes=9.94 GiB allocated_bytes=1.0 KiB",
        "kv: format=q4_0 cell_bytes=576 layers=12 cells=32896 bytes=227377152"
            + "|kv: format=q4_0 cell_bytes=576 B layers=12 cells=32896 bytes=216.8 MiB",
        "memory: total=51539607552 budget=50465865728 dense=2 headroom=0 arena_slots=7 slot_bytes=811008"
            + "|memory: total=48.00 GiB budget=47.00 GiB dense=2 B headroom=0 B arena_slots=7"
            + " slot_bytes=792.0 KiB",
        "arena: mode=stream bytes_read=2097152 bytes_read_per_token=1048576 miss_rate=0.1"
            + "|arena: mode=stream bytes_read=2.0 MiB bytes_read_per_token=1.0 MiB miss_rate=0.1",
        // not byte fields, or not numbers: as they are
        "decode: tokens=64 seconds=0.412 tok_s=155.3|decode: tokens=64 seconds=0.412 tok_s=155.3",
        "engine: total=5 bytes=-3 bytes=12x|engine: total=5 bytes=-3 bytes=12x",
        "strata-ref: starting|strata-ref: starting",
        "bytes=12|bytes=12",
        "kv: bytes=9999999999999999999|kv: bytes=9999999999999999999",
        // the engine's progress, one line
        "progress: phase=prefill done=1024 total=8192|prefill: 1,024 of 8,192 (12%)",
        "progress: phase=prefill total=8192 done=8192 eta_s=0|prefill: 8,192 of 8,192 (100%)"
      })
  void byteFieldsAreSizesAndProgressIsOneLine(String engine, String shown) {
    assertEquals(
        shown,
        engine.startsWith("progress: ")
            ? EngineLines.progress(engine)
            : EngineLines.withSizes(engine));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "prefill: tokens=512 seconds=1.0",
        "progress: phase=prefill done=5",
        "progress: phase=prefill done=9 total=5",
        "progress: phase=prefill done=x total=5",
        "progress: phase= done=1 total=5",
        "progress: 50%"
      })
  void anythingElseIsNotAProgressLine(String line) {
    assertNull(EngineLines.progress(line));
  }

  /** Each line with its line separator. */
  private String lines(String... each) {
    return String.join(nl, each) + nl;
  }

  /** On a terminal: sizes, and progress updated in place, ended by the next line or the flush. */
  @Test
  void onATerminalProgressUpdatesOneLine() {
    RunSummary tap = new RunSummary();
    LogRouter r = new LogRouter(new PrintWriter(out), new PrintWriter(err), tap, true);
    for (String l :
        new String[] {
          "progress: phase=prefill done=256 total=512",
          "progress: phase=prefill done=512 total=512",
          "memory: peak_rss_bytes=10672857088 allocated_bytes=1024",
          "progress: phase=prefill done=1 total=2"
        }) {
      r.line(0, l);
    }
    r.line(1, "a warning");
    r.flush();
    assertEquals(
        lines(
            "\rprefill: 256 of 512 (50%)\u001b[K\rprefill: 512 of 512 (100%)\u001b[K",
            "memory: peak_rss_bytes=9.94 GiB allocated_bytes=1.0 KiB",
            "\rprefill: 1 of 2 (50%)\u001b[K"),
        out.toString());
    assertEquals("warn: a warning" + nl, err.toString());
    // --json reads what the engine wrote
    assertEquals("10672857088", tap.section("memory").get("peak_rss_bytes"));
  }

  /** Without a terminal every line is the engine's, a progress line a plain line. */
  @Test
  void withoutATerminalLinesPassAsTheyAre() {
    String[] engine = {
      "progress: phase=prefill done=256 total=512",
      "memory: peak_rss_bytes=10672857088 allocated_bytes=1024"
    };
    LogRouter r = new LogRouter(new PrintWriter(out), new PrintWriter(err), null, false);
    for (String l : engine) {
      r.line(0, l);
    }
    r.flush();
    assertEquals(lines(engine), out.toString());
  }
}
