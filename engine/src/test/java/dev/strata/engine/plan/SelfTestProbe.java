package dev.strata.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Asks strata-ref's own code a question: {@code ref_selftest --MODE}
 * (engine/native/test/selftest.c, linked with the engine's objects) reads one question a line on
 * stdin and answers one line each.
 */
final class SelfTestProbe {
  private SelfTestProbe() {}

  /**
   * The answers of {@code ref_selftest --mode} to {@code questions}, one per question, in order.
   * Fails the test when it exits other than 0 or answers a different number of lines.
   */
  static List<String> ask(String mode, List<String> questions) throws Exception {
    Process p =
        new ProcessBuilder(
                RepoRoot.path().resolve("engine/target/native/ref_selftest").toString(),
                "--" + mode)
            .redirectErrorStream(true)
            .start();
    CompletableFuture<String> out =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            });
    try (OutputStream o = p.getOutputStream()) {
      o.write((String.join("\n", questions) + "\n").getBytes(StandardCharsets.US_ASCII));
    }
    List<String> lines = out.get().lines().toList();
    assertEquals(0, p.waitFor(), () -> String.join("\n", lines));
    assertEquals(questions.size(), lines.size(), () -> String.join("\n", lines));
    return lines;
  }
}
