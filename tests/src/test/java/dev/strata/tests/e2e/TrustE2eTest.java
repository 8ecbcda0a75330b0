package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strata.engine.Sha256;
import dev.strata.tests.dist.Cli;
import dev.strata.testsupport.LibrarySwapper;
import dev.strata.testsupport.SecondUser;
import dev.strata.testsupport.StandInLibrary;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library that runs is the one that was checked, and only root or the launching user can change
 * what runs: the real launcher, real libraries compiled here, a real swapper, a real second user
 * (docs/LAUNCH.md, "Threat model").
 */
@DisabledOnOs(OS.WINDOWS)
class TrustE2eTest {
  @TempDir static Path dir;
  static List<Path> shards;
  static Path marker;
  static Path pinned;
  static Path other;
  static String pin;
  static SecondUser
      second; // a second, unprivileged user, or null when the tests do not run as root
  static String user; // its name

  static final List<String> SHORT = List.of("--prompt-tokens", "8", "--n-predict", "2");

  @BeforeAll
  static void build() throws Exception {
    shards = E2e.demoModel(dir);
    marker = dir.resolve("ran.txt");
    Path src = E2e.privateDir(dir.resolve("src"));
    pinned = compile(src, "pinned");
    other = compile(src, "other");
    pin = Sha256.hex(Files.readAllBytes(pinned));
    second = SecondUser.create("st13");
    user = second == null ? null : second.name();
  }

  @AfterAll
  static void removeUser() {
    if (second != null) {
      second.close();
    }
  }

  /** A library of the real ABI whose constructor records that it ran (before any ABI check). */
  static Path compile(Path folder, String name) throws IOException, InterruptedException {
    return StandInLibrary.compile(folder, name, marker);
  }

  static List<String> ran() throws IOException {
    return Files.exists(marker) ? Files.readAllLines(marker) : List.of();
  }

  static Path config(Path file, Path library, String sha) throws IOException {
    return E2e.config(file, library, sha, shards, 1024, SHORT, Map.of());
  }

  /**
   * Issue 28: a dry run and a plan run nothing, so they load no library the config does not pin
   * (loading runs its constructors). An ABI 2 stand-in whose constructor appends to the marker: an
   * unpinned config's {@code --dry-run}, {@code --plan}, {@code --dry-run --json} and {@code
   * --dry-run --isolate} leave the marker as it was and say the engine was not asked; the same
   * library pinned is loaded for its check (docs/LAUNCH.md, "What a dry run runs"), and a launch
   * loads it pinned or not.
   */
  @Test
  void aDryRunOrAPlanNeverLoadsAnUnpinnedLibraryAndAsksAPinnedOneItsCheck() throws Exception {
    Path folder = E2e.privateDir(dir.resolve("checker"));
    Path lib = StandInLibrary.compileWithCheck(folder, "checker", marker, 0, List.of());
    Path unpinned = config(dir.resolve("checker-unpinned.yaml"), lib, null);
    int before = ran().size();
    String[][] modes = {
      {"--dry-run"}, {"--plan"}, {"--dry-run", "--json"}, {"--dry-run", "--isolate"}
    };
    for (String[] mode : modes) {
      List<String> a = new ArrayList<>(List.of("--config", unpinned.toString()));
      a.addAll(List.of(mode));
      E2e.Result r = E2e.launch(a.toArray(String[]::new));
      String what = String.join(" ", mode);
      assertEquals(0, r.code(), what + ": " + r.out() + r.err());
      assertEquals(before, ran().size(), what + " ran the unpinned library's code: " + ran());
      String all = r.out() + r.err();
      assertTrue(all.contains("not asked: engine.library in"), what + ":\n" + all);
      if (mode.length == 2 && mode[1].equals("--json")) {
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("launcher", j.get("verdict_from").asText(), r.out());
      } else if (!mode[0].equals("--plan")) {
        assertTrue(r.out().contains("verdict from the launcher's own rules"), r.out());
      }
    }
    // pinned: the dry run loads it to ask its check (its code runs), and says the engine decided
    Path pinnedCfg = config(dir.resolve("checker-pinned.yaml"), lib, E2e.pin(lib));
    E2e.Result d = E2e.launch("--config", pinnedCfg.toString(), "--dry-run", "--json");
    assertEquals(0, d.code(), d.out() + d.err());
    assertEquals("engine", new ObjectMapper().readTree(d.out()).get("verdict_from").asText());
    assertEquals(List.of("checker"), ran().subList(before, ran().size()));
  }

  void race(String name, int launches, boolean isolate) throws Exception {
    Path folder = E2e.privateDir(dir.resolve(name));
    Path target = folder.resolve("libengine.so");
    Files.copy(pinned, target);
    Path cfg = config(dir.resolve(name + ".yaml"), target, pin);
    int before = ran().size();
    int runs = 0;
    int refused = 0;
    LibrarySwapper swapper = new LibrarySwapper(target, other, pinned);
    int attempts = 0;
    try (swapper) {
      // Each launch opens the pinned or the other file, about half and half: a few launches can all
      // be refused by chance (1 in 16 for 4), so launch on, up to 4 times as many, until one ran
      // the
      // pinned library; every launch is checked alike.
      for (int i = 0; i < launches || (runs == 0 && i < 4 * launches); i++) {
        attempts++;
        E2e.Result r =
            isolate
                ? E2e.launch("--config", cfg.toString(), "--isolate")
                : E2e.launch("--config", cfg.toString());
        assertFalse(r.out().contains("other: running"), "the other library ran:\n" + r.out());
        if (r.code() == 0) {
          assertTrue(r.out().contains("pinned: running"), r.out() + r.err());
          runs++;
        } else {
          assertEquals(3, r.code(), r.out() + r.err());
          String line = r.oneLineRefusal();
          assertTrue(line.contains("does not match engine.sha256"), line);
          refused++;
        }
      }
    }
    List<String> after = ran().subList(before, ran().size());
    assertFalse(after.contains("other"), "the other library's code ran: " + after);
    assertEquals(attempts, runs + refused);
    assertTrue(runs > 0, "no launch ran the pinned library");
    assertTrue(
        swapper.swaps() > launches / 2, "the swapper swapped only " + swapper.swaps() + " times");
  }

  @Test
  void twoHundredLaunchesAgainstASwapperRunThePinnedLibraryOrExit3() throws Exception {
    race("race", 200, false);
  }

  @Test
  void isolatedLaunchesAgainstASwapperRunThePinnedLibraryOrExit3() throws Exception {
    race("race-iso", 4, true);
  }

  // ------------------------------------------------------------------ ownership (second user)

  static void needUser() {
    Assumptions.assumeTrue(user != null, SecondUser.WHY_NOT);
  }

  @Test
  void aLibraryOwnedByAnotherUserIsRefusedNamingItsOwner() throws Exception {
    needUser();
    Path folder = E2e.privateDir(dir.resolve("theirs"));
    Path lib = Files.copy(pinned, folder.resolve("libengine.so"));
    second.own(lib);
    E2e.Result r = E2e.launch("--config", config(dir.resolve("theirs.yaml"), lib, pin).toString());
    assertEquals(3, r.code(), r.err());
    String line = r.oneLineRefusal();
    assertTrue(line.startsWith("engine library " + lib + " (owner " + user + " (uid "), line);
    assertTrue(line.contains(") is not owned by root: its owner could change"), line); // as root
    // the remedy never adopts what another user controls (no chown of their file)
    assertTrue(line.contains("(copy it to a folder you own, after checking it is the one"), line);
    assertFalse(line.contains("chown"), line);
    assertFalse(ran().contains("pinned") && r.out().contains("pinned: running"));
  }

  @Test
  void aLibraryInAFolderOwnedByAnotherUserIsRefused() throws Exception {
    needUser();
    Path folder = E2e.privateDir(dir.resolve("their-folder"));
    Path lib = Files.copy(pinned, folder.resolve("libengine.so"));
    second.own(folder); // they may rename our file away and put theirs in its place
    E2e.Result r = E2e.launch("--config", config(dir.resolve("tf.yaml"), lib, null).toString());
    assertEquals(3, r.code(), r.err());
    String line = r.oneLineRefusal();
    assertTrue(line.startsWith("folder " + folder + " of the engine library " + lib), line);
    assertTrue(line.contains("(owner " + user), line);
    assertFalse(r.out().contains("pinned: running"));
  }

  @Test
  void aConfigOwnedByAnotherUserInAStickySharedFolderIsRefused() throws Exception {
    needUser();
    Path shared = Files.createDirectories(dir.resolve("shared-tmp"));
    new ProcessBuilder("chmod", "1777", shared.toString()).inheritIO().start().waitFor();
    Path lib = E2e.privateDir(dir.resolve("ours"));
    Path ourLib =
        Files.copy(pinned, lib.resolve("libengine.so"), StandardCopyOption.REPLACE_EXISTING);
    // their config names their library and drops the pin: it must never be read
    Path sub = Files.createDirectories(shared.resolve("cfg"));
    Path cfg = config(sub.resolve("engine.yaml"), ourLib, pin);
    second.own(sub);
    second.own(cfg);
    E2e.Result r = E2e.launch("--config", cfg.toString());
    assertEquals(3, r.code(), r.err());
    String line = r.oneLineRefusal();
    assertTrue(line.startsWith("folder " + sub + " of the config " + cfg), line);
    assertTrue(line.contains("(owner " + user), line);
    // the same through STRATA_CONFIG-style default lookups: a config file of theirs in our folder
    Path mine = E2e.privateDir(dir.resolve("mine-cfg"));
    Path theirCfg = config(mine.resolve("engine.yaml"), ourLib, null);
    second.own(theirCfg);
    E2e.Result r2 = E2e.launch("--config", theirCfg.toString());
    assertEquals(3, r2.code(), r2.err());
    assertTrue(r2.oneLineRefusal().startsWith("config " + theirCfg + " (owner " + user), r2.err());
  }

  @Test
  void aWorldWritableConfigIsRefusedAConfigInASharedStickyFolderReadItsLibraryNot()
      throws Exception {
    Path mine = E2e.privateDir(dir.resolve("ww-cfg"));
    Path lib = Files.copy(pinned, E2e.privateDir(dir.resolve("ww-lib")).resolve("libengine.so"));
    Path cfg = config(mine.resolve("engine.yaml"), lib, pin);
    Files.setPosixFilePermissions(cfg, PosixFilePermissions.fromString("rw-rw-rw-"));
    E2e.Result r = E2e.launch("--config", cfg.toString());
    assertEquals(3, r.code(), r.err());
    assertTrue(r.oneLineRefusal().contains("mode 0666) is writable by group and others"), r.err());
    assertTrue(r.err().contains("chmod go-w " + cfg), r.err());

    Path shared = Files.createDirectories(dir.resolve("sticky-holder"));
    new ProcessBuilder("chmod", "1777", shared.toString()).inheritIO().start().waitFor();
    // a root-owned sticky folder (/tmp) may hold the config: it is read whole through the one
    // checked descriptor, and only its owner may rename or remove it there
    // (OwnerRule.SHARED_HOLDER)
    Path inShared = config(shared.resolve("engine.yaml"), lib, pin);
    E2e.Result r2 = E2e.launch("--config", inShared.toString());
    if ((Integer) Files.getAttribute(shared, "unix:uid") != 0) {
      // not run as root: a sticky folder of another owner is no shared holder
      assertEquals(3, r2.code(), r2.err());
      assertTrue(r2.oneLineRefusal().startsWith("folder " + shared + " of the config"), r2.err());
      return;
    }
    assertEquals(0, r2.code(), r2.err());
    // never the library: what is loaded may look beside itself for names anyone could create first
    Path sharedLib = Files.copy(pinned, shared.resolve("libengine.so"));
    Path toShared = config(mine.resolve("shared-lib.yaml"), sharedLib, pin);
    E2e.Result r3 = E2e.launch("--config", toShared.toString());
    assertEquals(3, r3.code(), r3.err());
    assertTrue(r3.oneLineRefusal().startsWith("folder " + shared + " of the"), r3.err());
  }

  @Test
  void setupRefusesALibraryLaunchWouldRefuseWithTheSameWords() throws Exception {
    Path folder = E2e.privateDir(dir.resolve("setup-lib"));
    Path lib = Files.copy(pinned, folder.resolve("libengine.so"));
    Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxrwxrwx"));
    E2e.Result launch =
        E2e.launch("--config", config(dir.resolve("sl.yaml"), lib, null).toString());
    assertEquals(3, launch.code());
    String launchWords = launch.oneLineRefusal();
    Cli.Result s = setup(setupArgs(lib, "--yes", "--print"));
    assertEquals(3, s.code(), s.err());
    String setupLine = s.err().strip();
    assertTrue(setupLine.startsWith("strata-setup: "), setupLine);
    // the same rule, the same words; only the context (where the path came from) differs
    String words = launchWords.substring(0, launchWords.indexOf("; engine.library in"));
    assertTrue(setupLine.contains(words), setupLine + "\nvs\n" + launchWords);
  }

  // ------------------------------------------------------------------ escapes

  @Test
  void terminalEscapesInPathsAreShownNotObeyedAndJsonStaysValid() throws Exception {
    Path evil = dir.resolve("evil\u001b]0;pwned\u0007\u001b[2Jdir");
    Path lib = evil.resolve("libnope.so");
    Path cfg = config(E2e.privateDir(dir.resolve("evil-cfg")).resolve("engine.yaml"), lib, null);
    E2e.Result r = E2e.launch("--config", cfg.toString());
    assertEquals(3, r.code());
    assertFalse(r.err().contains("\u001b"), "a raw ESC reached the terminal: " + r.err());
    assertFalse(r.err().contains("\u0007"));
    assertTrue(r.oneLineRefusal().contains("evil\\x1B]0;pwned\\x07\\x1B[2Jdir"), r.err());

    E2e.Result j = E2e.launch("--config", cfg.toString(), "--dry-run", "--json");
    assertEquals(3, j.code());
    JsonNode doc = new ObjectMapper().readTree(j.out()); // valid JSON
    String detail =
        doc.get("checks").findValuesAsText("detail").stream()
            .filter(d -> d.contains("not found"))
            .findFirst()
            .orElseThrow();
    assertTrue(detail.contains(lib.toString()), "the raw value, escaped by JSON: " + detail);
    assertFalse(j.out().contains("\u001b"), "raw ESC in JSON output");
  }

  @Test
  void aHandEditedConfigWithControlCharactersShowsItsDiffEscaped() throws Exception {
    Path out = E2e.privateDir(dir.resolve("diff")).resolve("engine.yaml");
    Files.writeString(out, "# edited \u001b[2J by hand\nschema: strata.engine/v1\n");
    Cli.Result s = setup(setupArgs(pinned, "--yes", "--out", out.toString()));
    assertEquals(2, s.code(), s.err());
    assertFalse(s.err().contains("\u001b"), s.err());
    assertTrue(s.err().contains("-# edited \\x1B[2J by hand"), s.err());
  }

  // ------------------------------------------------------------------ /dev/full

  @Test
  @EnabledOnOs(OS.LINUX)
  void printToAFullDeviceFailsWithOneLine() throws Exception {
    Assumptions.assumeTrue(Files.exists(Path.of("/dev/full")), "no /dev/full here");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("dev.strata.setup.SetupMain");
    cmd.addAll(List.of(setupArgs(pinned, "--yes", "--print")));
    Process p = new ProcessBuilder(cmd).redirectOutput(new File("/dev/full")).start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(2, p.exitValue(), err);
    assertEquals(1, err.lines().count(), err);
    assertTrue(err.startsWith("strata-setup: --print: cannot write the config"), err);
  }

  // ------------------------------------------------------------------ helpers

  static Path hostFile() throws IOException {
    Path h = dir.resolve("host.json");
    if (!Files.exists(h)) {
      Files.writeString(h, dev.strata.engine.host.HostFactsCodec.write(E2e.here()));
    }
    return h;
  }

  /** strata-setup's flags for the demo model, this library and this machine, then {@code more}. */
  static String[] setupArgs(Path library, String... more) throws IOException {
    List<String> args = new ArrayList<>();
    args.addAll(List.of("--model", shards.getFirst().toString(), "--engine-lib"));
    args.addAll(List.of(library.toString(), "--host-file", hostFile().toString()));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  static Cli.Result setup(String... args) {
    return Cli.setup(Map.of("HOME", dir.resolve("home").toString(), "NO_COLOR", "1"), false, args);
  }
}
