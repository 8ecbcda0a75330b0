package dev.strata.tests.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.launcher.LaunchMain;
import dev.strata.metal.HostProbe;
import dev.strata.setup.SetupMain;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Runs a bad-input case (issue 8): a row of {@code badinput/cases.tsv} runs through the real
 * command line (the commands' own picocli factories, captured writers, an environment whose HOME
 * and config folders are inside the case's temporary folder) and must
 *
 * <ul>
 *   <li>exit with the pinned code and print the pinned line first on stderr;
 *   <li>print at most that line plus the case's documented hint lines, and no stack trace;
 *   <li>print nothing on stdout (a refused run has no output);
 *   <li>write nothing: the temporary folder's listing (names, sizes, modification times,
 *       permissions) is the same after the run as before;
 *   <li>never load the engine: no engine log line appears.
 * </ul>
 *
 * A few {@code control} rows run good input through the same preparation and must succeed, so a
 * refusal is known to come from the bad input and not from the harness.
 */
final class CorpusRunner {
  private CorpusRunner() {}

  private static final Pattern HINT =
      Pattern.compile("Try 'strata-(setup|launch)( [a-z-]+)? --help' for more information\\.");

  /** Lines strata-ref logs once it runs (ENGINE-CONTRACT); none may appear for a refused input. */
  private static final Pattern ENGINE_LOG =
      Pattern.compile("(?m)^.*(kv: format=|decode: tokens=).*$");

  static Path corpus() {
    try {
      return Path.of(CorpusRunner.class.getResource(BadInputCase.TABLE).toURI()).getParent();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  record Outcome(int exit, String out, String err) {}

  /**
   * Runs one case in a folder of its own under {@code root}; fails (AssertionError) when it is not
   * met.
   */
  static void run(BadInputCase c, Path root) throws IOException {
    Path tmp = Files.createDirectories(root.resolve(c.name()));
    Prepare.copyCaseFiles(corpus().resolve(c.name()), tmp);
    Prepare.run(c.prepare(), tmp);
    Map<String, String> env = env(c, tmp);
    Map<String, String> before = listing(tmp);

    Outcome o = execute(c, tmp, env);

    record(c, tmp, o);
    String where = c.name() + " (" + c.command() + " " + c.args() + ")";
    String all = o.out() + o.err();
    assertFalse(all.contains("Exception"), () -> where + ": an exception shows:\n" + all);
    assertFalse(all.contains("\tat "), () -> where + ": a stack trace shows:\n" + all);
    if (c.kind().equals("control-engine")) {
      // the counterpart of the check below: a good config does load and run the engine, and it
      // shows
      assertEquals(0, o.exit(), () -> where + ": the control launch failed:\n" + all);
      assertTrue(ENGINE_LOG.matcher(all).find(), () -> where + ": no engine log line:\n" + all);
      return;
    }
    assertFalse(ENGINE_LOG.matcher(all).find(), () -> where + ": the engine ran:\n" + all);
    List<String> lines = o.err().lines().filter(l -> !l.isBlank()).toList();
    if (c.exit() == 0) {
      assertEquals(0, o.exit(), () -> where + ": the control case failed:\n" + o.err());
      return;
    }
    assertEquals(c.exit(), o.exit(), () -> where + ": exit code; stderr:\n" + o.err());
    assertFalse(lines.isEmpty(), () -> where + ": nothing on stderr");
    assertTrue(
        c.matches(lines.getFirst(), tmp),
        () ->
            where
                + ": stderr line\n  got:      "
                + lines.getFirst()
                + "\n  expected: "
                + c.stderr());
    List<String> extra = lines.subList(1, lines.size());
    assertTrue(
        extra.size() <= c.hints() && extra.stream().allMatch(l -> HINT.matcher(l).matches()),
        () -> where + ": more than one line (+" + c.hints() + " hints) on stderr:\n" + o.err());
    if (!c.stdout()) {
      assertEquals("", o.out(), () -> where + ": stdout is not empty");
    }
    assertEquals(before, listing(tmp), () -> where + ": files changed");
  }

  /**
   * With {@code -Dbadinput.record=FILE}, appends each case's exit code and stderr (with the folder
   * written as {tmp}) to FILE: how a new case's expectation is read off before it is pinned, by
   * hand, in cases.tsv.
   */
  private static void record(BadInputCase c, Path tmp, Outcome o) throws IOException {
    String file = System.getProperty("badinput.record");
    if (file == null || file.isBlank()) {
      return;
    }
    String err =
        o.err()
            .replace(tmp.toString(), "{tmp}")
            .replace(Prepare.refLibrary().toString(), "{lib}")
            .strip();
    Files.writeString(
        Path.of(file),
        c.name() + "\t" + o.exit() + "\t" + err.replace("\n", " \u23CE ") + "\n",
        java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
  }

  private static Map<String, String> env(BadInputCase c, Path tmp) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("HOME", tmp.resolve("home").toString());
    env.put("XDG_CONFIG_HOME", tmp.resolve("home/.config").toString());
    env.put("PATH", "/usr/bin:/bin");
    env.put("NO_COLOR", "1");
    for (String op : c.prepare().split(";")) {
      String[] w = op.trim().split(" +", 2);
      if (w[0].equals("env")) {
        int eq = w[1].indexOf('=');
        env.put(w[1].substring(0, eq), Prepare.expand(w[1].substring(eq + 1), tmp));
      }
    }
    return env;
  }

  static Outcome execute(BadInputCase c, Path tmp, Map<String, String> env) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    PrintWriter o = new PrintWriter(out, true);
    PrintWriter e = new PrintWriter(err, true);
    ByteArrayInputStream in = new ByteArrayInputStream(new byte[0]);
    int exit =
        switch (c.command()) {
          // what strata-setup's main runs: its fast path for a simple command line
          case "setup" -> SetupMain.run(Io.of(in, o, e, env, false), c.argv(tmp));
          // what strata-launch's main runs: its fast path for a simple command line
          case "launch" ->
              LaunchMain.run(
                  new Io(
                      java.io.InputStream.nullInputStream(),
                      o,
                      e,
                      env,
                      false,
                      code -> {
                        throw new AssertionError("halt(" + code + ")");
                      }),
                  Machine.system(HostProbe::probe),
                  c.argv(tmp));
          default -> fail("unknown command " + c.command());
        };
    o.flush();
    e.flush();
    return new Outcome(exit, out.toString(), err.toString());
  }

  /** Every path under {@code dir} with its size, modification time and permissions. */
  static Map<String, String> listing(Path dir) throws IOException {
    Map<String, String> m = new LinkedHashMap<>();
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted().toList()) {
        PosixFileAttributes a =
            Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        m.put(
            dir.relativize(p).toString(),
            a.size() + " " + a.lastModifiedTime().toInstant() + " " + a.permissions());
      }
    }
    return m;
  }
}
