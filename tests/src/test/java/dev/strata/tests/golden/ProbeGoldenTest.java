package dev.strata.tests.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.engine.host.HostFactsCodec;
import dev.strata.engine.host.HostProfiles;
import dev.strata.tests.dist.Cli;
import dev.strata.testsupport.GoldenFiles;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code strata-setup probe --host-file PROFILE} (the table) and {@code --json} for three Macs of
 * different classes: an 8 GB M1, the M4 Pro the seed measured on, and a k4 (M5) machine.
 */
class ProbeGoldenTest {
  private static final GoldenFiles GOLDEN = GoldenFiles.project();

  static List<String> profiles() {
    return List.of("m1-8", "m4-pro-48", "m5-32");
  }

  @ParameterizedTest(name = "probe --host-file {0}")
  @MethodSource("profiles")
  void probeTableEqualsGolden(String profile) {
    GOLDEN.check("probe/" + profile + ".txt", run("probe", "--host-file", profile));
  }

  @ParameterizedTest(name = "probe --json --host-file {0}")
  @MethodSource("profiles")
  void probeJsonEqualsGolden(String profile) {
    String json = run("probe", "--json", "--host-file", profile);
    GOLDEN.check("probe/" + profile + ".json", json);
    // what --json prints is what --host-file reads back
    assertEquals(
        HostProfiles.profile(profile).orElseThrow(), HostFactsCodec.read(json, "probe --json"));
  }

  private static String run(String... argv) {
    Cli.Result r = Cli.setup(Map.of("NO_COLOR", "1"), false, argv);
    assertEquals(0, r.code(), String.join(" ", argv) + ": " + r.err());
    assertEquals("", r.err(), String.join(" ", argv) + " wrote to stderr");
    return r.out();
  }
}
