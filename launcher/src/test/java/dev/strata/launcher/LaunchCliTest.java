package dev.strata.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.cli.Io;
import dev.strata.testsupport.Captured;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The command line itself: help, version, usage errors, completion. No engine is loaded. */
class LaunchCliTest {
  @TempDir Path tmp;

  record Result(int code, String out, String err) {}

  private Result run(Map<String, String> env, String... args) {
    Captured c = new Captured();
    int code = LaunchCli.create(Io.of(c.out(), c.err(), env, false)).execute(args);
    return new Result(code, c.outText(), c.errText());
  }

  private Result run(String... args) {
    return run(Map.of("HOME", tmp.toString()), args);
  }

  @Test
  void helpTeachesChecksExamplesAndExitCodes() {
    Result r = run("--help");
    assertEquals(0, r.code());
    for (String s :
        new String[] {
          "Usage: strata-launch",
          "--config",
          "--dry-run",
          "--plan",
          "--json",
          "--isolate",
          "--kv k8v4",
          "not writable by group or others",
          "owned by root or you",
          "engine.sha256",
          "Examples:",
          "Exit codes:",
          "129",
          "130",
          "143",
          "70",
          "STRATA_CONFIG",
          "completion"
        }) {
      assertTrue(r.out().contains(s), "help mentions " + s + ":\n" + r.out());
    }
  }

  @Test
  void anEmptyConfigPathIsNamedNotTakenForTheWorkingFolder() {
    Result r = run("--config", "", "--dry-run");
    assertEquals(2, r.code(), r.err());
    assertEquals(
        "strata-launch: --config: the path is empty: pass --config FILE (an engine config,"
            + " engine.yaml)\n",
        r.err());
  }

  @Test
  void versionComesFromTheBuild() {
    Result r = run("--version");
    assertEquals(0, r.code());
    assertTrue(r.out().startsWith("strata-launch 0.1.0"), r.out());
  }

  @Test
  void aMistypedFlagSuggestsTheRightOneAndExits2() {
    Result r = run("--dryrun");
    assertEquals(2, r.code());
    assertEquals(
        "strata-launch: unknown option '--dryrun' (did you mean --dry-run?)\n"
            + "Try 'strata-launch --help' for more information.\n",
        r.err());
    assertTrue(!r.err().contains("\tat "), "no stack trace");
    // llama.cpp's spelling of a flag we spell otherwise
    Result llama = run("--temperature", "0", "--dry-run");
    assertEquals(2, llama.code());
    assertTrue(
        llama
            .err()
            .startsWith("strata-launch: unknown option '--temperature' (did you mean --temp?)"),
        llama.err());
    // an engine flag (or llama.cpp's spelling of one) given to the launcher: where it goes
    for (String[] engineFlag : new String[][] {{"--threads", "4"}, {"--ctx-size", "8192"}}) {
      Result e = run(engineFlag[0], engineFlag[1], "--dry-run");
      assertEquals(2, e.code());
      String ours = engineFlag[0].equals("--threads") ? "--threads" : "--ctx";
      assertTrue(
          e.err()
              .startsWith(
                  "strata-launch: unknown option '"
                      + engineFlag[0]
                      + "' ("
                      + ours
                      + " is an engine flag: it goes in the config's args, docs/CONFIG.md)"),
          e.err());
    }
  }

  @Test
  void jsonWithALaunchNeedsItsConfigLikeAnyLaunch() {
    // --json of a run is a run: its config is checked first (the run's JSON:
    // MemoryAccountingE2eTest)
    Result r = run("--json", "--config", "/nonexistent-strata/engine.yaml");
    assertEquals(2, r.code());
    assertEquals("strata-launch: no config at /nonexistent-strata/engine.yaml\n", r.err());
  }

  @Test
  void hostFileIsOnlyForPlanning() {
    Result r = run("--host-file", "h.json");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("a launch always checks this machine"), r.err());
  }

  @Test
  void aMissingConfigAtTheDefaultPathSaysWhereAndWhatToDo() {
    Result r = run(Map.of("HOME", tmp.toString()));
    assertEquals(2, r.code());
    assertEquals(
        "strata-launch: no config at "
            + tmp.resolve(".config/strata/engine.yaml")
            + " (the default path): run strata-setup to write one, or pass --config FILE\n",
        r.err());
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aConfigInTheStickyTmpIsReadNotRefusedForItsFolder() throws java.io.IOException {
    Path shared = Path.of("/tmp");
    org.junit.jupiter.api.Assumptions.assumeTrue(
        (Integer) java.nio.file.Files.getAttribute(shared, "unix:uid") == 0
            && ((Integer) java.nio.file.Files.getAttribute(shared, "unix:mode") & 07777) == 01777,
        "/tmp is not root's 1777 here");
    Path cfg = java.nio.file.Files.createTempFile(shared, "strata-launch-", ".yaml");
    try {
      java.nio.file.Files.writeString(cfg, "schema: strata.engine/v0\n");
      java.nio.file.Files.setPosixFilePermissions(
          cfg, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
      Result r = run("--config", cfg.toString(), "--dry-run");
      // read (and refused for what it says), not refused for the folder that holds it
      assertEquals(2, r.code(), r.err());
      assertTrue(r.err().contains("schema"), r.err());
      assertTrue(!r.err().contains("writable by"), r.err());
    } finally {
      java.nio.file.Files.deleteIfExists(cfg);
    }
  }

  @Test
  void llamaCppsDashCWithAContextSizeIsToldDashCIsTheConfig() {
    Result r = run("-c", "4096", "--dry-run");
    assertEquals(2, r.code(), r.err());
    assertTrue(
        r.err()
            .contains(
                "4096 (-c is --config here, not llama.cpp's --ctx-size: the context is the"
                    + " config's, strata-setup --ctx N)"),
        r.err());
  }

  @Test
  void strataConfigOverridesTheDefaultPath() {
    Path cfg = tmp.resolve("elsewhere.yaml");
    Result r = run(Map.of("HOME", tmp.toString(), "STRATA_CONFIG", cfg.toString()));
    assertEquals(2, r.code());
    assertTrue(r.err().contains("no config at " + cfg), r.err());
  }

  @Test
  @EnabledOnOs({OS.LINUX, OS.MAC})
  void theBashCompletionScriptIsValidAndRegistersTheCommand()
      throws IOException, InterruptedException {
    Result r = run("completion", "bash");
    assertEquals(0, r.code());
    Path script = tmp.resolve("strata-launch.bash");
    Files.writeString(script, r.out(), StandardCharsets.UTF_8);
    Process p =
        new ProcessBuilder(
                "bash", "-c", "source \"$1\" && complete -p strata-launch", "_", script.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), output);
    assertTrue(output.contains("strata-launch"), output);
  }

  @Test
  void completionNeedsAKnownShell() {
    Result r = run("completion", "fish");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("bash, zsh"), r.err());
  }
}
