package dev.strata.tests.dist;

import dev.strata.engine.cli.Io;
import dev.strata.launcher.LaunchCli;
import dev.strata.setup.SetupCli;
import dev.strata.testsupport.RepoRoot;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Both commands as their {@code main} builds them ({@link SetupCli#create}, {@link
 * LaunchCli#create}), run in this JVM with captured streams and a given environment.
 */
final class Cli {
  private Cli() {}

  record Result(int code, String out, String err) {
    String firstLine() {
      return out.lines().findFirst().orElse("");
    }
  }

  /** strata-setup; {@code terminal} says whether a terminal is attached (colour, wizard). */
  static Result setup(Map<String, String> env, boolean terminal, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Io io =
        Io.of(
            InputStream.nullInputStream(),
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            env,
            terminal);
    int code = SetupCli.create(io).execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  static Result setup(String... args) {
    return setup(Map.of(), false, args);
  }

  static Result launch(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = LaunchCli.create(launchIo(out, err, env)).execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  static Result launch(String... args) {
    return launch(Map.of(), args);
  }

  static Io launchIo(StringWriter out, StringWriter err, Map<String, String> env) {
    return new Io(
        java.io.InputStream.nullInputStream(),
        new PrintWriter(out, true),
        new PrintWriter(err, true),
        env,
        false,
        code -> {
          throw new AssertionError("halt(" + code + ") in a CLI test");
        });
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
