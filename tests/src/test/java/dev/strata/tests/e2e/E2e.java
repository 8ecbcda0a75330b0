package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Folders;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.model.TinyModel;
import dev.strata.launcher.LaunchCli;
import dev.strata.metal.HostProbe;
import dev.strata.tests.dist.Cli;
import dev.strata.testsupport.RepoRoot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * End-to-end support: the real strata-ref library, the demo model, configs written with the real
 * codec, strata-launch run in this JVM through {@link LaunchCli} (the same factory as {@code
 * LaunchMain}) or as a child JVM. Nothing here stands in for the engine.
 */
final class E2e {
  private E2e() {}

  /** The repository root. */
  static Path root() {
    return RepoRoot.path();
  }

  static boolean mac() {
    return OS.MAC.isCurrentOs();
  }

  /** strata-ref as the engine module built it. */
  static Path refLibrary() {
    Path lib = RepoRoot.refLibrary();
    assertTrue(Files.isRegularFile(lib), "strata-ref is built at " + lib);
    return lib;
  }

  /** This machine, as the launcher's preflight sees it. */
  static HostFacts here() {
    return HostProbe.probe().facts();
  }

  /**
   * The model the end-to-end launches run, in {@code dir}/model: 4 shards of a qwen3moe strata-ref
   * computes with the seed's attention ({@link TinyModel#seedAttention}: 12 layers of 2 KV heads ×
   * 256, so the seed's KV pools to the byte). The seed geometry itself (the demo model, qwen3next)
   * is planned, never computed: strata-ref refuses it (MemoryAccountingE2eTest).
   */
  static List<Path> demoModel(Path dir) throws IOException {
    return TinyModel.seedAttention().write(dir.resolve("model"), "seed", 4, 42);
  }

  /**
   * What most end-to-end classes launch: the demo model and the built strata-ref, one per class
   * ({@code @RegisterExtension static final E2e.Demo demo = new E2e.Demo();}). Written before the
   * class's first test into a temp folder of its own, which also holds the class's configs, and
   * removed after its last.
   */
  static final class Demo implements BeforeAllCallback, AfterAllCallback {
    private Path dir;
    private List<Path> shards;
    private Path lib;

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
      dir = Files.createTempDirectory("strata-e2e-");
      shards = demoModel(dir);
      lib = refLibrary();
    }

    @Override
    public void afterAll(ExtensionContext context) {
      Folders.deleteQuietly(dir);
    }

    /** The class's folder. */
    Path dir() {
      return dir;
    }

    /** The demo model's four shards, first to last. */
    List<Path> shards() {
      return shards;
    }

    /** strata-ref. */
    Path lib() {
      return lib;
    }

    /**
     * {@link E2e#config} {@code dir/name} for this model and strata-ref, its sha256 pinned as
     * strata-setup pins it (a dry run asks the engine's own check only of a pinned library).
     */
    Path config(String name, long ctx, List<String> extraArgs, Map<String, String> env)
        throws IOException {
      return E2e.config(dir.resolve(name), lib, pin(lib), shards, ctx, extraArgs, env);
    }

    /**
     * {@link E2e#config} {@code dir/name} for {@code modelShards} (this model's, or some of them)
     * and strata-ref without a pin: {@code --plan} then does not load the library (and says why the
     * engine's items are not shown).
     */
    Path unpinnedConfig(String name, List<Path> modelShards, long ctx, List<String> extraArgs)
        throws IOException {
      return E2e.config(dir.resolve(name), lib, null, modelShards, ctx, extraArgs, Map.of());
    }
  }

  /** The sha256 strata-setup would pin for {@code library}, or null when there is no such file. */
  static String pin(Path library) throws IOException {
    return Files.isRegularFile(library)
        ? dev.strata.engine.Sha256.hex(Files.readAllBytes(library))
        : null;
  }

  /** A private folder (not world-writable), as a library's folder must be. */
  static Path privateDir(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    return dir;
  }

  /**
   * Writes a cpu-reference config.
   *
   * @param extraArgs engine args after {@code --model first --ctx N}
   */
  static Path config(
      Path file,
      Path library,
      String sha256,
      List<Path> shards,
      long ctx,
      List<String> extraArgs,
      Map<String, String> env)
      throws IOException {
    List<String> args = new ArrayList<>();
    args.add("--model");
    args.add(shards.getFirst().toString());
    args.add("--ctx");
    args.add(Long.toString(ctx));
    args.addAll(extraArgs);
    EngineConfig c =
        new EngineConfig(
            EngineConfig.SCHEMA,
            new EngineConfig.Engine("cpu-reference", library.toString(), sha256),
            new EngineConfig.Model(shards.stream().map(Path::toString).toList()),
            here(),
            args,
            env);
    Files.createDirectories(file.getParent());
    Files.writeString(file, ConfigCodec.write(c), StandardCharsets.UTF_8);
    return file;
  }

  /** What a launch printed and returned. */
  record Result(int code, String out, String err) {
    List<String> errLines() {
      return err.lines().toList();
    }

    /** The launcher's refusal: exactly one stderr line, prefixed. */
    String oneLineRefusal() {
      List<String> lines = errLines();
      assertEquals(1, lines.size(), "one line on stderr, got:\n" + err);
      assertTrue(lines.getFirst().startsWith("strata-launch: "), lines.getFirst());
      assertTrue(!err.contains("\tat "), "no stack trace");
      return lines.getFirst().substring("strata-launch: ".length());
    }
  }

  /** strata-launch in this JVM ({@link Cli#launch}); a halt (second Ctrl-C) throws. */
  static Result launch(String... args) {
    Cli.Result r = Cli.launch(Map.of("HOME", System.getProperty("java.io.tmpdir")), args);
    return new Result(r.code(), r.out(), r.err());
  }

  /**
   * A daemon thread copying {@code in} into {@code sink} as it comes (each chunk written under the
   * sink's lock, then {@code onChunk} run), until the end of the stream or its closing.
   */
  static Thread pump(InputStream in, ByteArrayOutputStream sink, Runnable onChunk) {
    return Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try (in) {
                byte[] buf = new byte[256];
                int n;
                while ((n = in.read(buf)) > 0) {
                  synchronized (sink) {
                    sink.write(buf, 0, n);
                  }
                  onChunk.run();
                }
              } catch (IOException e) {
                // the process closed its end
              }
            });
  }

  /** What a {@link #pump} collected so far, as UTF-8. */
  static String text(ByteArrayOutputStream sink) {
    synchronized (sink) {
      return sink.toString(StandardCharsets.UTF_8);
    }
  }

  /**
   * strata-launch as its own JVM, the way bin/strata-launch starts it, with this JVM's class path.
   * SIGHUP, SIGINT and SIGTERM are reset to their defaults first ({@code env --default-signal}, GNU
   * coreutils): a process inherits an ignored signal across exec (a background job has SIGINT
   * ignored; a suite run under {@code nohup}, or by a runner that ignores SIGHUP, has SIGHUP
   * ignored), and the JVM keeps an ignored SIGHUP, SIGINT or SIGTERM ignored, installing no handler
   * for it ({@code sun.misc.Signal.handle} returns without one) — which is right for the launcher
   * (under {@code nohup} a hang-up must not stop it), and would make a signal test hang until its
   * timeout.
   */
  static ProcessBuilder launcherProcess(List<String> launcherArgs) {
    List<String> cmd = new ArrayList<>();
    if (!mac() && Files.isExecutable(Path.of("/usr/bin/env"))) {
      cmd.add("/usr/bin/env");
      cmd.add("--default-signal=HUP,INT,TERM");
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("dev.strata.launcher.LaunchMain");
    cmd.addAll(launcherArgs);
    return new ProcessBuilder(cmd);
  }
}
