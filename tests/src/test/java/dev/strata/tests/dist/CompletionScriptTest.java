package dev.strata.tests.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code strata-setup completion bash} and {@code strata-launch completion bash}, run through a
 * real bash: the script parses, registers a completion function for the command, and that function
 * completes a partial flag the way a user's TAB would.
 */
class CompletionScriptTest {
  @TempDir Path tmp;

  record Bash(int code, String out) {}

  private static Bash bash(Path dir, String... args) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(
                java.util.stream.Stream.concat(
                        java.util.stream.Stream.of("bash", "--norc", "--noprofile"),
                        java.util.Arrays.stream(args))
                    .toList())
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Bash(p.waitFor(), out);
  }

  private static boolean haveBash() {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, "bash"))) {
        return true;
      }
    }
    return false;
  }

  @ParameterizedTest(name = "{0} completion bash")
  @CsvSource({"strata-setup, --k, --kv", "strata-launch, --dr, --dry-run"})
  void bashScriptParsesRegistersAndCompletes(String command, String partial, String expected)
      throws IOException, InterruptedException {
    assumeTrue(haveBash(), "bash is not installed: the completion script cannot be run here");
    Function<String[], Cli.Result> cli = command.equals("strata-setup") ? Cli::setup : Cli::launch;
    Cli.Result r = cli.apply(new String[] {"completion", "bash"});
    assertEquals(0, r.code(), r.err());
    Path script = tmp.resolve(command + ".bash");
    Files.writeString(script, r.out(), StandardCharsets.UTF_8);

    Bash syntax = bash(tmp, "-n", script.toString());
    assertEquals(0, syntax.code(), "bash -n: " + syntax.out());

    Bash registered = bash(tmp, "-c", "source " + script + " && complete -p " + command);
    assertEquals(0, registered.code(), registered.out());
    assertTrue(registered.out().strip().matches("complete .*-F \\S+ " + command), registered.out());

    // what bash does on TAB after "<command> <partial>": call the registered function
    String tab =
        String.join(
            "\n",
            List.of(
                "source " + script,
                "COMP_WORDS=(" + command + " " + partial + "); COMP_CWORD=1",
                "COMP_LINE='" + command + " " + partial + "'; COMP_POINT=${#COMP_LINE}",
                "f=$(complete -p " + command + " | sed -n 's/.*-F \\([^ ]*\\).*/\\1/p')",
                "$f " + command + " " + partial + " " + command,
                "printf '%s\\n' \"${COMPREPLY[@]}\""));
    Bash completed = bash(tmp, "-c", tab);
    assertEquals(0, completed.code(), completed.out());
    assertTrue(completed.out().lines().anyMatch(expected::equals), completed.out());
  }

  @ParameterizedTest(name = "{0} completion zsh")
  @CsvSource({"strata-setup", "strata-launch"})
  void zshScriptIsTheBashScriptThroughBashcompinit(String command) {
    Function<String[], Cli.Result> cli = command.equals("strata-setup") ? Cli::setup : Cli::launch;
    Cli.Result zsh = cli.apply(new String[] {"completion", "zsh"});
    assertEquals(0, zsh.code(), zsh.err());
    assertTrue(zsh.out().contains("bashcompinit"), zsh.out());
    assertTrue(zsh.out().contains("complete -F"), "registers through bash's complete");
  }
}
