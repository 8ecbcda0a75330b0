package dev.strata.launcher.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChildProtocolTest {
  @Test
  void argsRoundTripIncludingValuesWithEqualsSignsAndArgsThatLookLikeNumbers() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("STRATA_METAL_PROMPT_GEMM", "0");
    env.put("STRATA_X", "a=b");
    ChildProtocol.ChildArgs a =
        new ChildProtocol.ChildArgs(
            "/proc/1/fd/7",
            "ab".repeat(32),
            "/lib/libstrata_ref.so",
            env,
            List.of("--ctx", "2", "3"));
    assertEquals(
        List.of(
            "/proc/1/fd/7",
            "ab".repeat(32),
            "/lib/libstrata_ref.so",
            "2",
            "STRATA_METAL_PROMPT_GEMM=0",
            "STRATA_X=a=b",
            "--ctx",
            "2",
            "3"),
        a.encode());
    assertEquals(a, ChildProtocol.ChildArgs.decode(a.encode()));
  }

  @Test
  void malformedArgvIsRefused() {
    assertThrows(
        IllegalArgumentException.class, () -> ChildProtocol.ChildArgs.decode(List.of("x")));
    assertThrows(
        IllegalArgumentException.class,
        () -> ChildProtocol.ChildArgs.decode(List.of("h", "s", "x", "2", "A=1")));
    assertThrows(
        IllegalArgumentException.class,
        () -> ChildProtocol.ChildArgs.decode(List.of("h", "s", "x", "1", "=1")));
  }

  @Test
  void aMultiLineEngineLineBecomesOneRecordPerLine() {
    assertEquals(
        List.of("@strata:log:1:a", "@strata:log:1:b"), ChildProtocol.logRecords(1, "a\nb\n"));
    assertEquals(List.of("@strata:log:0:"), ChildProtocol.logRecords(0, ""));
  }

  @Test
  void failMessagesAreOneLine() {
    // the child writes its fail record through the one rule (EngineChildMain)
    assertEquals("a b \\x1B[2J", dev.strata.engine.text.Clip.oneLine("a\n  b\n\u001b[2J"));
  }
}
