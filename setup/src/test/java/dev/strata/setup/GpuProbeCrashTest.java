package dev.strata.setup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.model.DemoModel;
import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19's acceptance: the native GPU probe dies (a stand-in Metal method raises SIGSEGV, which
 * kills the JVM as a driver fault would on a Mac), and the next run of strata-setup says so in one
 * line, skips the GPU probe and writes a usable config: the same config as for the known Mac's
 * profile. Each run is a JVM of its own ({@link StandinSetupMain}).
 */
class GpuProbeCrashTest {
  @TempDir Path dir;

  record Run(int code, String out, String err) {}

  static Path standin() {
    Assumptions.assumeTrue(
        System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux"),
        "the Darwin stand-in is built for Linux only");
    Path root = RepoRoot.path();
    Path lib = root.resolve("metal/target/darwin-standin/libdarwin_standin.so");
    assertTrue(Files.isRegularFile(lib), lib + " is missing: the metal module's build makes it");
    return lib;
  }

  Run run(Path lib, String fault, String... args) throws Exception {
    Path root = RepoRoot.path();
    Path profile = root.resolve("metal/src/test/resources/darwin-standin/m4-pro-48.profile");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(
        List.of(
            "--enable-native-access=ALL-UNNAMED",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Xshare:auto",
            "-XX:-CreateCoredumpOnCrash",
            "-XX:ErrorFile=" + dir.resolve("hs_err_pid%p.log"),
            "-cp",
            System.getProperty("java.class.path"),
            StandinSetupMain.class.getName(),
            lib.toString(),
            profile.toString(),
            fault));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    pb.environment().clear();
    pb.environment().put("HOME", dir.resolve("home").toString());
    pb.environment().put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    pb.redirectOutput(dir.resolve("out.txt").toFile());
    pb.redirectError(dir.resolve("err.txt").toFile());
    int code = pb.start().waitFor();
    return new Run(
        code,
        Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8),
        Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8));
  }

  List<Path> markers() throws IOException {
    Path cache = dir.resolve("home/.cache/strata");
    if (!Files.isDirectory(cache)) {
      return List.of();
    }
    try (Stream<Path> l = Files.list(cache)) {
      return l.filter(p -> p.getFileName().toString().startsWith("metal-probe-")).toList();
    }
  }

  @Test
  void aProbeKilledInTheGpuPartMakesTheNextRunFallBackWithOneLineAndAUsableConfig()
      throws Exception {
    Path lib = standin();
    Path model = DemoModel.write(dir.resolve("model"), 4).getFirst();
    Path engine = dir.resolve("libstrata_metal.dylib");
    Files.write(engine, smallestMachO()); // only its hash goes into the config
    Path config = dir.resolve("engine.yaml");
    String[] setup = {
      "--model",
      model.toString(),
      "--engine-lib",
      engine.toString(),
      "--yes",
      "--out",
      config.toString()
    };

    Run crashed = run(lib, "segv:supportsFamily:", setup);
    assertNotEquals(0, crashed.code(), crashed.err());
    assertTrue(
        crashed.out().contains("SIGSEGV") || crashed.err().contains("SIGSEGV"),
        "the JVM died of the fault: " + crashed.out() + crashed.err());
    assertFalse(Files.exists(config), "nothing written by the run that died");
    List<Path> left = markers();
    assertEquals(1, left.size(), "the marker of the probe that died");

    Run next = run(lib, "-", setup);
    assertEquals(0, next.code(), next.err());
    // the probe's note, one line; then what every config write ends with (71bdb52): the
    // command that launches it
    List<String> lines = next.err().lines().toList();
    assertEquals(2, lines.size(), next.err());
    assertTrue(lines.getLast().startsWith("launch it: "), next.err());
    assertTrue(lines.getLast().contains(" --config "), next.err());
    String line = lines.getFirst();
    assertTrue(
        line.startsWith(
            "strata-setup: probe: Metal: the GPU probe of an earlier run did not finish (pid "),
        line);
    assertTrue(line.contains("crashed), so it is not run again"), line);
    assertTrue(
        line.contains("gpu_family 1009, k4 no, metal4 yes taken from the chip name 'Apple M4 Pro'"),
        line);
    assertTrue(line.contains("please report it"), line);
    assertTrue(line.contains("remove " + left.getFirst() + " to try the GPU probe again"), line);
    assertTrue(next.out().contains("wrote " + config), next.out());

    // Usable: valid, for this Mac, and byte for byte the config of its known profile.
    assertEquals(HostProfiles.load("m4-pro-48"), ConfigCodec.read(config).host());
    Path known = dir.resolve("known.yaml");
    String[] byProfile = setup.clone();
    byProfile[byProfile.length - 1] = known.toString();
    List<String> withHost = new ArrayList<>(List.of(byProfile));
    withHost.addAll(List.of("--host-file", "m4-pro-48"));
    Run profile = run(lib, "-", withHost.toArray(String[]::new));
    assertEquals(0, profile.code(), profile.err());
    assertEquals(Files.readString(known), Files.readString(config));
    assertEquals(left, markers(), "the marker stays until the user removes it");
  }

  @Test
  void sysctlOnlyOnPurposeAndGpuFamilyFlagNeverRunTheGpuProbe() throws Exception {
    Path lib = standin();
    Path model = DemoModel.write(dir.resolve("model"), 4).getFirst();
    Path engine = dir.resolve("libstrata_metal.dylib");
    Files.write(engine, smallestMachO());
    // A fault in supportsFamily: would kill these runs if the GPU probe ran.
    Run flag =
        run(
            lib,
            "segv:supportsFamily:",
            "--model",
            model.toString(),
            "--engine-lib",
            engine.toString(),
            "--gpu-family",
            "apple10",
            "--yes",
            "--print");
    assertEquals(0, flag.code(), flag.err());
    assertEquals("", flag.err(), "the user said what Metal would: no note");
    assertTrue(flag.out().contains("gpu_family: 1010"), flag.out());
    assertEquals(List.of(), markers());
  }

  /**
   * The smallest whole Mach-O 64 library header: setup checks --engine-lib as a launch would (for a
   * Mac host's loader), so a text file would be refused.
   */
  static byte[] smallestMachO() {
    return java.nio.ByteBuffer.allocate(32)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .putInt(0, 0xfeedfacf)
        .array();
  }
}
