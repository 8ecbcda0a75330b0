package dev.strata.launcher.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class CrashReportTest {
  // The head of a real HotSpot fatal-error banner (JDK 25, Linux x64).
  private static final List<String> BANNER =
      List.of(
          "#",
          "# A fatal error has been detected by the Java Runtime Environment:",
          "#",
          "#  SIGSEGV (0xb) at pc=0x00007f3a1c0011c9, pid=4242, tid=4243",
          "#",
          "# JRE version: OpenJDK Runtime Environment Temurin-25+36 (25.0+36) (build 25+36-LTS)",
          "# Problematic frame:",
          "# C  [libstrata_ref.so+0x11c9]  strata_fault_segv+0x9",
          "#");

  @Test
  void theBannerSignalWinsOverTheAbortStatus() {
    assertEquals(
        "engine crashed: signal 11 (SIGSEGV) at [libstrata_ref.so+0x11c9] strata_fault_segv+0x9"
            + " — the engine library faulted; rerun without --isolate for a core dump",
        CrashReport.describe(134, BANNER, null));
  }

  @Test
  void aPlainAbortIsReadFromTheStatus() {
    assertEquals(
        "engine crashed: signal 6 (SIGABRT) — the engine library faulted; rerun without --isolate"
            + " for a core dump",
        CrashReport.describe(134, List.of(), null));
  }

  @Test
  void namesTheCrashReportWhenThereIsOne() {
    String line = CrashReport.describe(139, List.of(), Path.of("/tmp/x/hs_err_pid1.log"));
    assertEquals(
        "engine crashed: signal 11 (SIGSEGV) — the engine library faulted; crash report:"
            + " /tmp/x/hs_err_pid1.log; rerun without --isolate for a core dump",
        line);
  }

  @Test
  void aNonSignalStatusWithoutRecordIsStillOneLine() {
    assertEquals(
        "engine crashed: its process ended with status 1 without reporting an exit code; rerun"
            + " without --isolate for a core dump",
        CrashReport.describe(1, List.of(), null));
  }
}
