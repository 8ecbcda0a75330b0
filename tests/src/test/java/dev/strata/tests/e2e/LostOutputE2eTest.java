package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every command's output path, its standard output on {@code /dev/full}: a write that failed is
 * exit 2 with one line on stderr (Io.finish), never exit 0 with the output lost. The real mains in
 * child JVMs: the fast paths, picocli's help, the subcommands.
 */
@EnabledOnOs(OS.LINUX)
class LostOutputE2eTest {
  @RegisterExtension static final E2e.Demo demo = new E2e.Demo();

  static Path config;

  @BeforeAll
  static void config() throws IOException {
    config = demo.config("lost.yaml", 1024, List.of(), Map.of());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "launch --help",
        "launch --version",
        "launch --plan --config CFG",
        "launch --plan --json --config CFG",
        "launch --dry-run --config CFG",
        "launch --dry-run --json --config CFG",
        "launch --plan --explain --config CFG",
        "setup --help",
        "setup probe --list-hosts",
        "setup probe --json",
        "setup completion bash",
      })
  void aLostStandardOutputIsExit2WithOneLine(String command) throws Exception {
    List<String> words = new ArrayList<>(List.of(command.split(" ")));
    boolean launch = words.removeFirst().equals("launch");
    words.replaceAll(w -> w.equals("CFG") ? config.toString() : w);
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(launch ? "dev.strata.launcher.LaunchMain" : "dev.strata.setup.SetupMain");
    cmd.addAll(words);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(new File("/dev/full"));
    pb.environment().put("HOME", demo.dir().toString());
    Process p = pb.start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), command);
    String name = launch ? "strata-launch" : "strata-setup";
    assertEquals(2, p.exitValue(), command + ": " + err);
    String last = err.lines().toList().getLast();
    assertTrue(last.startsWith(name + ": cannot write to standard output"), err);
    assertEquals(
        1, err.lines().filter(l -> l.contains("cannot write")).count(), "one line: " + err);
    assertTrue(!err.contains("\tat "), "no stack trace: " + err);
  }
}
