package dev.strata.setup;

import static dev.strata.testsupport.TextAssertions.assertContainsAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostFactsCodec;
import dev.strata.engine.host.HostProfiles;
import dev.strata.metal.HostProbe;
import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProbeCommandTest {
  private static final Path HOSTS = RepoRoot.resolve("templates/hosts");

  static CliHarness.Run run(Map<String, String> env, boolean interactive, String... args) {
    return CliHarness.system(env, interactive, args);
  }

  static CliHarness.Run run(String... args) {
    return run(Map.of(), false, args);
  }

  @Test
  void jsonIsTheProbedHostJson() {
    CliHarness.Run r = run("probe", "--json");
    assertEquals(0, r.code(), r.err());
    HostFacts f = HostFactsCodec.read(r.out(), "stdout");
    assertEquals(HostProbe.probe().facts(), f);
    assertEquals(HostFactsCodec.write(f), r.out(), "stdout is exactly the canonical host JSON");
    if (System.getProperty("os.name").startsWith("Linux")) {
      assertEquals("linux", f.os());
      assertFalse(f.k4());
    }
  }

  @Test
  void jsonWithAHostFilePrintsItBackUnchanged() throws IOException {
    Path file = HOSTS.resolve("m4-pro-48.json");
    CliHarness.Run r = run("probe", "--json", "--host-file", file.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals(Files.readString(file), r.out());
    assertEquals("", r.err());
  }

  @Test
  void aProfileNameWorksAsHostFile() throws IOException {
    CliHarness.Run r = run("probe", "--json", "--host-file", "m5-32");
    assertEquals(Files.readString(HOSTS.resolve("m5-32.json")), r.out());
  }

  @Test
  void nonCanonicalFileComesBackCanonical(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("host.json");
    Files.writeString(file, HostFactsCodec.write(HostProfiles.load("m1-8")).replace("\n", " "));
    CliHarness.Run r = run("probe", "--json", "--host-file", file.toString());
    assertEquals(HostFactsCodec.write(HostProfiles.load("m1-8")), r.out());
  }

  @Test
  void aHostFileNamedWithControlCharactersIsShownNeverObeyed(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("x\u001b[31mRED\u202eevil.json");
    Files.copy(HOSTS.resolve("m1-8.json"), file);
    CliHarness.Run r = run("probe", "--host-file", file.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("x\\x1B[31mRED\\u202Eevil.json"), r.out());
    assertFalse(r.out().contains("\u001b") || r.out().contains("\u202e"), r.out());
  }

  @Test
  void tableSaysWhatK4MeansOnTheSeedMachine() {
    CliHarness.Run r = run("probe", "--host-file", "m4-pro-48");
    assertEquals(0, r.code(), r.err());
    String t = r.out();
    assertTrue(t.startsWith("Host: profile m4-pro-48\n"), t);
    assertContainsAll(
        t,
        "  chip         Apple M4 Pro\n",
        "  cores        14 (10 P + 4 E)",
        "runs on the 10 performance cores",
        "  memory       48.00 GiB",
        "  wired limit  OS default",
        "here 3/4: the Metal engine plans with 36.00 GiB",
        "  GPU family   1009 (Apple9)",
        "  Metal 4      yes");
    assertTrue(
        t.contains(
            "  k4           no                    prompts take the GEMM chain; the arena keeps 576"
                + " stand-by slots\n"),
        t);
  }

  @Test
  void tableForAnM5AndASmallMac() {
    String m5 = run("probe", "--host-file", "m5-32").out();
    assertTrue(m5.contains("  k4           yes"), m5);
    assertTrue(m5.contains("flash chain"), m5);
    String m1 = run("probe", "--host-file", "m1-8").out();
    assertTrue(m1.contains("here 2/3: the Metal engine plans with 5.33 GiB"), m1);
    assertTrue(m1.contains("  GPU family   1007 (Apple7)"), m1);
  }

  @Test
  void tableForThisMachine() {
    CliHarness.Run r = run("probe");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("Host: probed ("), r.out());
    assertTrue(r.out().contains("  k4           "), r.out());
  }

  @Test
  void badHostFileIsExit2WithOneLineNamingFileAndField() throws IOException {
    Path bad = Path.of("../engine/src/test/resources/host-corpus/bad/07-unknown-field.json");
    CliHarness.Run r = run("probe", "--json", "--host-file", bad.toString());
    assertEquals(2, r.code());
    assertEquals("", r.out());
    assertEquals(
        "strata-setup: "
            + bad.toAbsolutePath().normalize()
            + ":4:3: unknown field 'cores' (known: os, chip, cpu_cores, perf_cores,"
            + " efficiency_cores, memory_bytes, gpu_family, metal4, k4, os_version,"
            + " wired_limit_mb)\n",
        r.err());
  }

  @Test
  void missingFolderAndUnknownNameAreExit2OneLine(@TempDir Path dir) {
    for (String arg : new String[] {dir.toString(), dir.resolve("x.json").toString(), "m9-1"}) {
      CliHarness.Run r = run("probe", "--host-file", arg);
      assertEquals(2, r.code(), arg);
      assertEquals(1, r.err().lines().count(), r.err());
      assertTrue(r.err().startsWith("strata-setup: " + arg + ": "), r.err());
      assertEquals("", r.out());
    }
  }

  @Test
  void listHostsNamesEveryProfile() {
    CliHarness.Run r = run("probe", "--list-hosts");
    assertEquals(0, r.code());
    for (HostProfiles.Profile p : HostProfiles.list()) {
      assertTrue(r.out().contains("  " + p.name() + " "), p.name());
    }
    assertEquals(2, run("probe", "--list-hosts", "--json").code());
  }

  @Test
  void colourOnlyOnATerminalWithoutNoColor() {
    String esc = "\u001b[";
    assertFalse(run(Map.of(), false, "probe", "--host-file", "m4-pro-48").out().contains(esc));
    assertTrue(run(Map.of(), true, "probe", "--host-file", "m4-pro-48").out().contains(esc));
    assertFalse(
        run(Map.of("NO_COLOR", "1"), true, "probe", "--host-file", "m4-pro-48")
            .out()
            .contains(esc));
    assertFalse(
        run(Map.of("TERM", "dumb"), true, "probe", "--host-file", "m4-pro-48").out().contains(esc));
    assertFalse(
        run(Map.of(), true, "probe", "--json", "--host-file", "m4-pro-48").out().contains(esc));
  }

  @Test
  void helpSaysAProfileNameIsAccepted() {
    CliHarness.Run r = run("probe", "--help");
    assertEquals(0, r.code());
    assertTrue(r.out().contains("m4-pro-48"), r.out());
    assertTrue(r.out().contains("--list-hosts"), r.out());
  }
}
