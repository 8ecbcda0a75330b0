package dev.strata.tests.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.engine.cli.Io;
import dev.strata.engine.host.HostFactsCodec;
import dev.strata.engine.host.HostProfiles;
import dev.strata.setup.SetupCli;
import dev.strata.testsupport.GoldenFiles;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
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
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        SetupCli.create(
                Io.of(
                    new ByteArrayInputStream(new byte[0]),
                    new PrintWriter(out, true),
                    new PrintWriter(err, true),
                    Map.of("NO_COLOR", "1"),
                    false))
            .execute(argv);
    assertEquals(0, code, String.join(" ", argv) + ": " + err);
    assertEquals("", err.toString(), String.join(" ", argv) + " wrote to stderr");
    return out.toString();
  }
}
