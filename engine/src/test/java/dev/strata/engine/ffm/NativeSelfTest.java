package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * strata-ref's C-level tests, run from the Maven test phase: the self test (fused kernels against
 * the kernels' decode, GGUF reader on truncated and mutated files, flags) and, when the compiler
 * has the sanitizers, the reduced AddressSanitizer run of the main flows ({@code make asan-quick};
 * the full one is {@code make asan}, docs/ENGINE-ABI.md).
 */
class NativeSelfTest {
  static final Path ROOT = NativeEngineTest.ROOT;
  static final Path NATIVE = NativeEngineTest.NATIVE;

  private static String runProcess(List<String> cmd, int expect)
      throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(expect, p.waitFor(), () -> String.join(" ", cmd) + "\n" + out);
    return out;
  }

  @Test
  void selfTestPasses() throws Exception {
    String out = runProcess(List.of(NATIVE.resolve("ref_selftest").toString(), "--quick"), 0);
    assertEquals(true, out.contains(" 0 failed"), out);
  }

  @Test
  void mainFlowsAreCleanUnderAddressSanitizer() throws Exception {
    assumeTrue(!Boolean.getBoolean("strata.asan.skip"), "skipped with -Dstrata.asan.skip=true");
    assumeTrue(sanitizersAvailable(), "the C compiler here has no -fsanitize=address,undefined");
    String out =
        runProcess(
            List.of(
                "make",
                "-s",
                "-C",
                ROOT.resolve("engine/native").toString(),
                "OUT=" + NATIVE,
                "KERNELS=" + ROOT.resolve("kernels/src/main/metal"),
                "asan-quick"),
            0);
    assertEquals(true, out.contains("flows: ") && out.contains(" 0 failed"), out);
  }

  private static boolean sanitizersAvailable() throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("strata-asan-probe");
    try {
      Path c = Files.writeString(dir.resolve("p.c"), "int main(void){return 0;}\n");
      Process p =
          new ProcessBuilder(
                  "cc",
                  "-fsanitize=address,undefined",
                  c.toString(),
                  "-o",
                  dir.resolve("p").toString())
              .redirectErrorStream(true)
              .start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } finally {
      try (var s = Files.list(dir)) {
        for (Path f : s.toList()) {
          Files.delete(f);
        }
      }
      Files.delete(dir);
    }
  }
}
