package dev.strata.setup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wizard on a real pty (issue 28): {@code strata-setup} in a child JVM under util-linux {@code
 * script}, at the model question, gets SIGHUP, SIGINT, SIGTERM or a ^D; it must exit with 129, 130,
 * 143 or 130, and {@code stty -a} in the same pty afterwards shows the terminal restored (icanon,
 * echo). Four tries, one per way out, run at once (each on its own pty); the only time bound is a
 * generous hang limit. The looped version (hundreds of tries, random moments) is
 * bench/wizard-signals/run.sh.
 */
@EnabledOnOs(OS.LINUX)
class WizardSignalsPtyTest {
  /** A hang, not a slow machine: each try normally ends in well under a second after the signal. */
  private static final long HANG_LIMIT_S = 120;

  private static final Pattern EXIT = Pattern.compile("EXIT=(\\d+)");

  @TempDir Path home;

  @Test
  void everyWayOutRestoresTheTerminal() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "util-linux script(1)");
    List<String> ways = List.of("HUP", "INT", "TERM", "EOF");
    // the four tries at once, each on its own pty: most of a try is its JVM starting
    Map<String, CompletableFuture<String>> tries = new LinkedHashMap<>();
    for (String how : ways) {
      tries.put(
          how,
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return run(how);
                } catch (Exception e) {
                  throw new CompletionException(e);
                }
              },
              r -> Thread.ofPlatform().daemon().start(r)));
    }
    for (String how : ways) {
      String seen = tries.get(how).get(2 * HANG_LIMIT_S + 30, TimeUnit.SECONDS);
      Matcher m = EXIT.matcher(seen);
      assertTrue(m.find(), how + ": the shell saw the JVM exit:\n" + seen);
      int expected =
          switch (how) {
            case "HUP" -> 129;
            case "TERM" -> 143;
            default -> 130;
          };
      assertEquals(expected, Integer.parseInt(m.group(1)), how + ":\n" + seen);
      String stty = seen.substring(seen.indexOf("STTY:"));
      assertTrue(stty.contains(" icanon") && !stty.contains("-icanon"), how + ": " + stty);
      assertTrue(stty.contains(" echo ") && !stty.contains("-echo "), how + ": " + stty);
      assertFalse(seen.contains("\tat "), how + ": no stack trace:\n" + seen);
    }
    try (var files = Files.walk(home)) {
      assertTrue(
          files.noneMatch(f -> f.getFileName().toString().endsWith(".yaml")), "nothing written");
    }
  }

  /** One try: the wizard on a pty, {@code how} at the model question; what the pty showed. */
  private String run(String how) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // signals the test runner ignores (nohup: SIGHUP) are inherited across script and sh, and the
    // JVM would keep them ignored: reset to the defaults (GNU env), as a terminal's shell has them
    String env =
        Files.isExecutable(Path.of("/usr/bin/env"))
            ? "/usr/bin/env --default-signal=HUP,INT,TERM "
            : "";
    String cmd =
        "stty sane; "
            + env
            + "'"
            + java
            + "' --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
            + " -cp \"$CP\" dev.strata.setup.SetupMain; echo \"EXIT=$?\";"
            + " printf 'STTY: %s\\n' \"$(stty -a | tr '\\n' ' ')\"";
    ProcessBuilder pb = new ProcessBuilder("/usr/bin/script", "-qfec", cmd, "/dev/null");
    pb.environment().put("CP", System.getProperty("java.class.path"));
    pb.environment().put("HOME", home.toString());
    pb.environment().put("XDG_CONFIG_HOME", home.resolve("config").toString());
    pb.environment().put("TERM", "xterm");
    pb.environment().put("SHELL", "/bin/sh");
    pb.redirectErrorStream(true);
    Process script = pb.start();
    StringBuilder seen = new StringBuilder();
    Thread reader = Thread.ofPlatform().daemon().start(() -> pump(script.getInputStream(), seen));
    try (OutputStream keys = script.getOutputStream()) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_LIMIT_S);
      while (!text(seen).contains("Model (first shard") && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(text(seen).contains("Model (first shard"), how + ": no question:\n" + seen);
      if (how.equals("EOF")) {
        keys.write(4); // ^D at the empty line
        keys.flush();
      } else {
        ProcessHandle jvm =
            script
                .descendants()
                .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no wizard JVM under script"));
        Process kill = new ProcessBuilder("kill", "-s", how, Long.toString(jvm.pid())).start();
        assertEquals(0, kill.waitFor());
      }
      assertTrue(
          script.waitFor(HANG_LIMIT_S, TimeUnit.SECONDS), how + ": the wizard hung:\n" + seen);
    } finally {
      // a try that failed leaves no wizard behind
      script.descendants().forEach(ProcessHandle::destroyForcibly);
      script.destroyForcibly();
    }
    reader.join(10_000);
    return text(seen);
  }

  private static String text(StringBuilder b) {
    synchronized (b) {
      return b.toString();
    }
  }

  private static void pump(InputStream in, StringBuilder into) {
    byte[] buf = new byte[4096];
    try (in) {
      for (int n; (n = in.read(buf)) >= 0; ) {
        String s = new String(buf, 0, n, StandardCharsets.UTF_8);
        synchronized (into) {
          into.append(s);
        }
      }
    } catch (IOException e) {
      // the process is gone
    }
  }
}
