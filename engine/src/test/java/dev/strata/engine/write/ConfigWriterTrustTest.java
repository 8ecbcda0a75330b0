package dev.strata.engine.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.StrataException;
import dev.strata.engine.trust.TrustRefused;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** Writes that never disagree with themselves (docs/SETUP.md, "ConfigWriter"). */
class ConfigWriterTrustTest {
  static byte[] content(String tag, int i) {
    return ("schema: strata.engine/v1\n# writer " + tag + " round " + i + "\n" + "x".repeat(i * 7))
        .getBytes(StandardCharsets.UTF_8);
  }

  /** The config on disk is the one its state records: the next run will not call it hand-edited. */
  static void assertAgrees(Path cfg, String round) {
    ConfigWriter.Existing e = ConfigWriter.inspect(cfg);
    assertTrue(e.exists(), round);
    assertTrue(e.owned(), round + ": the state file records another config than the one on disk");
  }

  @Test
  void twoWritersAtOnceLeaveAConfigAndAStateThatAgreeEveryRound(@TempDir Path dir)
      throws Exception {
    Path cfg = dir.resolve("engine.yaml");
    CyclicBarrier start = new CyclicBarrier(2);
    for (int round = 0; round < 30; round++) {
      int r = round;
      List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
      Thread a = Thread.ofPlatform().start(() -> writeAfter(start, cfg, content("a", r), failures));
      Thread b = Thread.ofPlatform().start(() -> writeAfter(start, cfg, content("b", r), failures));
      a.join();
      b.join();
      assertEquals(List.of(), failures, "round " + r);
      assertAgrees(cfg, "round " + r);
    }
  }

  private static void writeAfter(
      CyclicBarrier start, Path cfg, byte[] content, List<Throwable> failures) {
    try {
      start.await(10, TimeUnit.SECONDS);
      ConfigWriter.write(cfg, content, false);
    } catch (Throwable t) {
      failures.add(t);
    }
  }

  static ProcessBuilder child(List<String> prefix, String... args) {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(WriterChild.class.getName());
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectErrorStream(true);
  }

  @Test
  void twoWriterProcessesAtOnceLeaveAConfigAndAStateThatAgree(@TempDir Path dir) throws Exception {
    // the setup race across processes (two strata-setup runs): 2 × 12 writes interleaved
    Path cfg = dir.resolve("engine.yaml");
    ConfigWriter.write(cfg, content("seed", 0), false);
    Process p = child(List.of(), "loop", cfg.toString(), "12", "p").start();
    Process q = child(List.of(), "loop", cfg.toString(), "12", "q").start();
    String po = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String qo = new String(q.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS) && q.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), po);
    assertEquals(0, q.exitValue(), qo);
    assertAgrees(cfg, "after both processes");
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void forceReplacesAReadOnlyConfigOfItsOwnerAndKeepsItsMode(@TempDir Path dir) throws Exception {
    // root ignores file modes: the writer runs without CAP_DAC_OVERRIDE, as a plain owner would
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv (util-linux)");
    Path cfg = dir.resolve("engine.yaml");
    Files.writeString(cfg, "schema: strata.engine/v1\n# by hand\n");
    Files.setPosixFilePermissions(cfg, PosixFilePermissions.fromString("r--r--r--"));
    List<String> asOwner =
        dev.strata.engine.libc.Posix.geteuid() == 0
            ? List.of("/usr/bin/setpriv", "--bounding-set=-dac_override,-dac_read_search")
            : List.of();
    Process p = child(asOwner, "force", cfg.toString()).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    assertTrue(Files.readString(cfg).contains("# forced"));
    assertEquals("r--r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(cfg)));
    assertTrue(Files.readString(ConfigWriter.backupOf(cfg)).contains("# by hand"));
  }

  @Test
  void aFailingBackupIsNamedNotTheConfig(@TempDir Path dir) throws IOException {
    Path cfg = dir.resolve("engine.yaml");
    Files.writeString(cfg, "schema: strata.engine/v1\n# by hand\n");
    Files.createDirectory(ConfigWriter.backupOf(cfg)); // a folder where the .bak goes
    Files.writeString(ConfigWriter.backupOf(cfg).resolve("x"), "in the way");
    StrataException e =
        assertThrows(StrataException.class, () -> ConfigWriter.write(cfg, content("a", 1), true));
    assertTrue(
        e.getMessage().startsWith(ConfigWriter.backupOf(cfg) + ": cannot write"), e.getMessage());
    assertTrue(Files.readString(cfg).contains("# by hand"), "the config is untouched");
  }

  @Test
  void aGroupWritableConfigIsReplacedWithoutTheWriteBits(@TempDir Path dir) throws IOException {
    Path cfg = dir.resolve("engine.yaml");
    ConfigWriter.write(cfg, content("a", 1), false);
    Files.setPosixFilePermissions(cfg, PosixFilePermissions.fromString("rw-rw-r--"));
    // launch refuses it, so setup does too, with launch's words
    TrustRefused r =
        assertThrows(TrustRefused.class, () -> ConfigWriter.write(cfg, content("a", 2), false));
    assertTrue(r.getMessage().contains("is writable by its group"), r.getMessage());
    assertTrue(r.getMessage().contains("chmod go-w"), r.getMessage());
    assertEquals(
        PosixFilePermissions.fromString("rw-r--r--"),
        AtomicFile.launchable(PosixFilePermissions.fromString("rw-rw-rw-")));
  }

  @Test
  void outIntoAFolderOthersMayWriteIsRefusedBeforeAnythingIsWritten(@TempDir Path dir)
      throws IOException {
    Path open = Files.createDirectory(dir.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path cfg = open.resolve("engine.yaml");
    TrustRefused r =
        assertThrows(TrustRefused.class, () -> ConfigWriter.write(cfg, content("a", 1), false));
    assertEquals(3, r.exitCode());
    assertTrue(
        r.getMessage().startsWith("folder " + open.toRealPath() + " of the config"),
        r.getMessage());
    try (var s = Files.list(open)) {
      assertEquals(0, s.count(), "nothing written");
    }
    // a folder that does not exist yet under a private one is fine: setup creates it
    Path fresh = dir.resolve("a/b/engine.yaml");
    ConfigWriter.write(fresh, content("a", 1), false);
    assertArrayEquals(content("a", 1), Files.readAllBytes(fresh));
    assertFalse(Files.exists(open.resolve(".engine.yaml.lock")));
  }
}
