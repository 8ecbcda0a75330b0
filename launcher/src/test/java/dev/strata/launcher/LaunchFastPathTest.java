package dev.strata.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.model.TinyModel;
import dev.strata.metal.HostProbe;
import dev.strata.testsupport.Captured;
import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whole {@code strata-launch} runs in this JVM, each command line twice: through {@link
 * LaunchMain#run} (what {@code main} runs: the fast path, since every line here is simple) and
 * through picocli alone ({@link LaunchCli}), on the demo model and the real strata-ref. Standard
 * output, standard error and the exit code must be the same, for launches that pass and for each
 * kind of refusal. The parse itself, on a wider corpus: {@code LaunchOptionsTest}.
 */
@DisabledOnOs(OS.WINDOWS)
class LaunchFastPathTest {
  @TempDir static Path dir;
  static Path good;
  static Path bad;
  static Path refused;

  @BeforeAll
  static void configs() throws IOException {
    List<Path> shards = TinyModel.seedAttention().write(dir.resolve("model"), "seed", 4, 12);
    Path lib = RepoRoot.refLibrary();
    assertTrue(Files.isRegularFile(lib), "strata-ref is built at " + lib);
    Path conf = Files.createDirectories(dir.resolve("conf"));
    Files.setPosixFilePermissions(conf, PosixFilePermissions.fromString("rwx------"));
    List<String> args = new ArrayList<>();
    args.addAll(List.of("--model", shards.getFirst().toString(), "--ctx", "4096"));
    args.addAll(List.of("--experts", "stream", "--n-predict", "2", "--prompt-tokens", "8"));
    EngineConfig c =
        new EngineConfig(
            EngineConfig.SCHEMA,
            new EngineConfig.Engine("cpu-reference", lib.toString(), null),
            new EngineConfig.Model(shards.stream().map(Path::toString).toList()),
            HostProbe.probe().facts(),
            args,
            Map.of());
    good = conf.resolve("good.yaml");
    Files.writeString(good, ConfigCodec.write(c), StandardCharsets.UTF_8);
    bad = conf.resolve("bad.yaml");
    Files.writeString(
        bad, ConfigCodec.write(c).replace("library: ", "library: \""), StandardCharsets.UTF_8);
    // a folder anyone may write to: whoever can write there decides what runs (exit 3)
    Path open = Files.createDirectories(dir.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    refused = Files.copy(good, open.resolve("engine.yaml"));
  }

  record Result(int code, String out, String err) {}

  private static Result mainEntry(String... args) {
    Captured c = new Captured();
    int code = LaunchMain.run(io(c), Machine.system(HostProbe::probe), args);
    return new Result(code, c.outText(), c.errText());
  }

  private static Result picocliOnly(String... args) {
    Captured c = new Captured();
    int code = LaunchCli.create(io(c), Machine.system(HostProbe::probe)).execute(args);
    return new Result(code, c.outText(), c.errText());
  }

  private static Io io(Captured c) {
    return Io.of(c.out(), c.err(), Map.of("HOME", dir.resolve("home").toString()), false);
  }

  /**
   * What differs between two runs of the engine: its timings and its process's peak and start
   * memory (strata-ref's {@code prefill:}, {@code decode:}, {@code arena:} and {@code memory:}
   * lines).
   */
  static String untimed(String engineOutput) {
    return engineOutput.replaceAll(
        "\\b(seconds|tok_s|ms_per_token|expert_seconds|read_seconds|peak_rss_bytes|start_rss_bytes)=[0-9.]+",
        "$1=T");
  }

  /** Runs {@code args} both ways; they must agree. Returns the run. */
  private static Result same(String... args) {
    assertNotNull(LaunchOptions.simple(args), List.of(args) + " takes the fast path");
    Result fast = mainEntry(args);
    Result slow = picocliOnly(args);
    assertEquals(untimed(slow.out()), untimed(fast.out()), "stdout of " + List.of(args));
    assertEquals(untimed(slow.err()), untimed(fast.err()), "stderr of " + List.of(args));
    assertEquals(slow.code(), fast.code(), "exit code of " + List.of(args));
    return fast;
  }

  @Test
  void aGoodConfigDryRunPlanAndLaunch() {
    String g = good.toString();
    assertEquals(0, same("--dry-run", "--config", g).code());
    assertEquals(0, same("-c", g, "--dry-run", "--json").code());
    assertEquals(0, same("--plan", "--config", g).code());
    assertEquals(0, same("--plan", "--json", "--config", g).code());
    assertEquals(0, same("--plan", "--explain", "--config", g).code());
    assertEquals(0, same("--plan", "--host-file", "m4-pro-48", "--config", g).code());
    Result run = same("--config", g);
    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().contains("checksum: fnv1a64="), run.out());
    assertTrue(untimed(run.out()).contains("decode: tokens=2 seconds=T tok_s=T"), run.out());
  }

  @Test
  void aMissingConfig() {
    Result r = same("--dry-run", "--config", dir.resolve("nothing.yaml").toString());
    assertEquals(ExitCodes.USAGE, r.code());
    assertEquals("strata-launch: no config at " + dir.resolve("nothing.yaml") + "\n", r.err());
    // no --config: the default path under HOME, missing too
    assertEquals(ExitCodes.USAGE, same().code());
    assertEquals(ExitCodes.USAGE, same("--dry-run").code());
  }

  @Test
  void aBadConfig() {
    Result r = same("--dry-run", "--config", bad.toString());
    assertEquals(ExitCodes.USAGE, r.code());
    assertTrue(r.err().startsWith("strata-launch: " + bad + ":"), r.err());
    assertEquals(ExitCodes.USAGE, same("--config", dir.resolve("conf").toString()).code());
  }

  @Test
  void aConfigInAFolderOthersMayWriteTo() {
    Result r = same("--dry-run", "--config", refused.toString());
    assertEquals(ExitCodes.PREFLIGHT, r.code());
    assertTrue(r.err().contains("writable"), r.err());
    assertEquals(ExitCodes.PREFLIGHT, same("--config", refused.toString()).code());
  }

  @Test
  void optionsThatDoNotGoTogether() {
    String g = good.toString();
    assertEquals(ExitCodes.USAGE, same("--plan", "--dry-run", "--config", g).code());
    assertEquals(ExitCodes.USAGE, same("--explain", "--config", g).code());
    assertEquals(ExitCodes.USAGE, same("--host-file", "m4-pro-48", "--config", g).code());
    assertEquals(ExitCodes.USAGE, same("--isolate", "--plan", "--config", g).code());
    assertEquals(ExitCodes.USAGE, same("--config", "").code());
    assertEquals(ExitCodes.USAGE, same("--plan", "--host-file", "no-such-mac").code());
  }
}
