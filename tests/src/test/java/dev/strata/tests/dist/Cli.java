package dev.strata.tests.dist;

import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.launcher.LaunchMain;
import dev.strata.metal.HostProbe;
import dev.strata.setup.SetupMain;
import dev.strata.testsupport.Captured;
import dev.strata.testsupport.RepoRoot;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Both commands as their {@code main} runs them ({@link SetupMain#run}, {@link LaunchMain#run}:
 * each command's start-up fast path for a simple command line, else picocli), in this JVM with
 * captured streams and a given environment.
 */
public final class Cli {
  private Cli() {}

  /** What a command printed and returned. */
  public record Result(int code, String out, String err) {
    public String firstLine() {
      return out.lines().findFirst().orElse("");
    }
  }

  /** strata-setup; {@code terminal} says whether a terminal is attached (colour, wizard). */
  public static Result setup(Map<String, String> env, boolean terminal, String... args) {
    Captured c = new Captured();
    int code = SetupMain.run(Io.of(c.out(), c.err(), env, terminal), args);
    return new Result(code, c.outText(), c.errText());
  }

  public static Result setup(String... args) {
    return setup(Map.of(), false, args);
  }

  /**
   * strata-launch without a terminal, as its {@code main} runs it ({@link LaunchMain#run}: the
   * start-up fast path for a simple command line, else picocli); a halt (second Ctrl-C) throws.
   */
  public static Result launch(Map<String, String> env, String... args) {
    Captured c = new Captured();
    int code =
        LaunchMain.run(Io.of(c.out(), c.err(), env, false), Machine.system(HostProbe::probe), args);
    return new Result(code, c.outText(), c.errText());
  }

  public static Result launch(String... args) {
    return launch(Map.of(), args);
  }

  /** Streams that discard what is written, for building a command and reading its settings. */
  static Io discarding(Map<String, String> env, boolean terminal) {
    return Io.of(
        new PrintWriter(Writer.nullWriter()), new PrintWriter(Writer.nullWriter()), env, terminal);
  }

  /** The repository root. */
  static Path root() {
    return RepoRoot.path();
  }

  /** The project's version as the root pom declares it: what {@code --version} must print. */
  static String projectVersion() throws java.io.IOException {
    String pom = Files.readString(root().resolve("pom.xml"), StandardCharsets.UTF_8);
    Matcher m =
        Pattern.compile("<artifactId>strata-parent</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(pom);
    if (!m.find()) {
      throw new IllegalStateException("no strata-parent version in the root pom.xml");
    }
    return m.group(1).strip();
  }
}
