package dev.strata.setup;

import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.host.ProbeResult;
import dev.strata.engine.model.DemoModel;
import dev.strata.setup.prompt.JLinePrompter;
import dev.strata.testsupport.Captured;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs strata-setup in-process with captured streams, an injected env and a dumb terminal; the
 * working folder is the demo model's folder (so the wizard finds it).
 */
final class CliHarness {
  final Path dir;
  final Path model;
  final Path lib;
  final Path config;
  final Map<String, String> env = new HashMap<>();

  /** The source tree strata-ref is found in ({@code -Dstrata.root}); null: none (not found). */
  Path strataRoot;

  /** What the live probe answers (the seed's Mac unless a test says otherwise). */
  java.util.function.Function<Map<String, String>, ProbeResult> probe =
      e -> new ProbeResult(m4(), java.util.List.of(), java.util.OptionalLong.empty());

  record Run(int code, String out, String err, String terminal) {}

  CliHarness(Path dir) throws IOException {
    this(dir, DemoModel.write(dir.resolve("model"), 4).getFirst().getParent());
  }

  /** Another harness (own config, library, home) over an already written model. */
  CliHarness(Path dir, Path model) throws IOException {
    this.dir = dir;
    this.model = model;
    this.lib = dir.resolve("libstrata_ref.so");
    // the smallest whole Mach-O 64 library header (the harness's host is a Mac): setup checks a
    // library the way a launch would, so a text file would be refused
    java.nio.ByteBuffer macho =
        java.nio.ByteBuffer.allocate(32)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN)
            .putInt(0, 0xfeedfacf);
    Files.write(lib, macho.array());
    this.config = dir.resolve("cfg/engine.yaml");
    env.put("HOME", dir.resolve("home").toString());
    env.put("STRATA_CONFIG", config.toString());
  }

  /** A dense qwen3 (no experts) strata-ref computes, one shard under {@code dir}: its path. */
  static Path denseModel(Path dir) throws IOException {
    return dev.strata.engine.model.TinyModel.dense("qwen3")
        .write(dir, "tiny-dense", 1, 7)
        .getFirst();
  }

  static HostFacts m4() {
    return HostProfiles.profile("m4-pro-48").orElseThrow();
  }

  Machine machine() {
    return new Machine(
        "Linux", model, null, strataRoot, e -> probe.apply(e), java.time.Clock.systemUTC());
  }

  static SetupCli.PrompterFactory prompter(ByteArrayOutputStream terminalOut, String typed) {
    return io ->
        JLinePrompter.dumb(
            new ByteArrayInputStream(typed.getBytes(StandardCharsets.UTF_8)),
            terminalOut,
            io.env());
  }

  /** The profile most tests run on and this harness's library: {@code --host-file m4-pro-48}. */
  String[] hostAndLib() {
    return new String[] {"--host-file", "m4-pro-48", "--engine-lib", lib.toString()};
  }

  /** {@code --model} this harness's model, {@code --engine-lib} its library, then {@code more}. */
  String[] modelAndLib(String... more) {
    return concat(new String[] {"--model", model.toString(), "--engine-lib", lib.toString()}, more);
  }

  /** {@link #modelAndLib} on the M4 Pro 48 GB profile ({@code --host-file m4-pro-48}). */
  String[] base(String... more) {
    return concat(modelAndLib("--host-file", "m4-pro-48"), more);
  }

  private static String[] concat(String[] first, String[] more) {
    String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
    System.arraycopy(more, 0, all, first.length, more.length);
    return all;
  }

  /** Without a terminal. */
  Run run(String... args) {
    return exec(false, "", args);
  }

  /** On a (dumb) terminal, typing {@code typed}. */
  Run wizard(String typed, String... args) {
    return exec(true, typed, args);
  }

  private Run exec(boolean interactive, String typed, String... args) {
    Captured c = new Captured();
    ByteArrayOutputStream term = new ByteArrayOutputStream();
    Io io = Io.of(c.out(), c.err(), env, interactive);
    int code = SetupCli.create(io, machine(), prompter(term, typed)).execute(args);
    return new Run(code, c.outText(), c.errText(), term.toString(StandardCharsets.UTF_8));
  }

  /**
   * strata-setup as its {@code main} builds it (this machine's probe, no prompter), with this
   * environment; {@code terminal} says whether a terminal is attached. No harness files.
   */
  static Run system(Map<String, String> env, boolean terminal, String... args) {
    Captured c = new Captured();
    int code = SetupCli.create(Io.of(c.out(), c.err(), env, terminal)).execute(args);
    return new Run(code, c.outText(), c.errText(), "");
  }
}
