package dev.strata.engine.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.flags.Suggest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class HostFactsCodecTest {
  static final HostFacts M4_PRO =
      new HostFacts("macos", "Apple M4 Pro", 14, 10, 4, 48L << 30, 1009, true, false, "27.0.1", 0);
  static final HostFacts LINUX =
      new HostFacts(
          "linux", "AMD EPYC", 2, 2, 0, 24_683_656L * 1024, 0, false, false, "Debian 12", 0);

  static final String M4_PRO_JSON =
      """
      {
        "os": "macos",
        "chip": "Apple M4 Pro",
        "cpu_cores": 14,
        "perf_cores": 10,
        "efficiency_cores": 4,
        "memory_bytes": 51539607552,
        "gpu_family": 1009,
        "metal4": true,
        "k4": false,
        "os_version": "27.0.1",
        "wired_limit_mb": 0
      }
      """;

  @Test
  void writesCanonicalJsonInRecordOrder() {
    assertEquals(M4_PRO_JSON, HostFactsCodec.write(M4_PRO));
  }

  @Test
  void roundTripsBothWays() {
    for (HostFacts f : List.of(M4_PRO, LINUX)) {
      assertEquals(f, HostFactsCodec.read(HostFactsCodec.write(f), "x"));
    }
    assertEquals(M4_PRO_JSON, HostFactsCodec.write(HostFactsCodec.read(M4_PRO_JSON, "x")));
  }

  @Test
  void nonAsciiTextRoundTrips() {
    HostFacts f =
        new HostFacts("linux", "Cortex-A76 «big»", 8, 4, 4, 1L << 33, 0, false, false, "Débian", 0);
    String json = HostFactsCodec.write(f);
    assertTrue(json.contains("«big»"));
    assertEquals(f, HostFactsCodec.read(json, "x"));
  }

  @Test
  void readsAFileWithCompactOrReorderedFields() throws IOException {
    String compact =
        "{\"k4\":false,\"os\":\"macos\",\"chip\":\"Apple M4 Pro\",\"cpu_cores\":14,"
            + "\"perf_cores\":10,\"efficiency_cores\":4,\"memory_bytes\":51539607552,"
            + "\"gpu_family\":1009,\"metal4\":true,\"os_version\":\"27.0.1\",\"wired_limit_mb\":0}";
    assertEquals(M4_PRO, HostFactsCodec.read(compact, "x"));
  }

  @Test
  void theKeysAreTheRecordsComponentsInSnakeCase() {
    assertEquals(
        List.of(
            "os",
            "chip",
            "cpu_cores",
            "perf_cores",
            "efficiency_cores",
            "memory_bytes",
            "gpu_family",
            "metal4",
            "k4",
            "os_version",
            "wired_limit_mb"),
        HostFactsCodec.FIELDS);
  }

  // the rule the keys above come from, called directly: it runs only once, in a static initializer
  @ParameterizedTest
  @CsvSource({"k4, k4", "metal4, metal4", "cpuCores, cpu_cores", "wiredLimitMb, wired_limit_mb"})
  void aComponentNameIsSpelledInSnakeCase(String component, String key) {
    assertEquals(key, HostKeys.snake(component));
  }

  @Test
  void writeEndsWithOneNewlineAndUsesLf() {
    String json = HostFactsCodec.write(LINUX);
    assertTrue(json.endsWith("}\n"));
    assertFalse(json.contains("\r"));
  }

  @Test
  void errorsAreUsageErrorsNamingFileAndField() {
    HostFileException e =
        assertThrows(
            HostFileException.class,
            () ->
                HostFactsCodec.read(M4_PRO_JSON.replace("\"cpu_cores\"", "\"cores\""), "m4.json"));
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertEquals("cores", e.field().orElseThrow());
    assertTrue(e.getMessage().startsWith("m4.json:4:3: unknown field 'cores' (known: os, chip, "));
    assertFalse(e.getMessage().contains("\n"));
  }

  @Test
  void checkAcceptsTheProfilesRulesAndRefusesImpossibleFacts() {
    HostFactsCodec.check(M4_PRO, "x");
    HostFileException e =
        assertThrows(
            HostFileException.class,
            () ->
                HostFactsCodec.check(
                    new HostFacts(
                        "macos", "Apple M5", 10, 4, 6, 1L << 35, 1010, true, false, "27", 0),
                    "probe"));
    assertEquals(
        "probe: gpu_family is 1010 (Apple10, M5 class) but k4 is false: an Apple10 GPU is k4",
        e.getMessage());
  }

  @Test
  void typoHintOnlyWhenOneFieldFits() {
    assertEquals("cpu_cores", Suggest.nearest("cpu_core", HostFactsCodec.FIELDS));
    assertEquals("memory_bytes", Suggest.nearest("memory", HostFactsCodec.FIELDS));
    assertEquals("os_version", Suggest.nearest("os-version", HostFactsCodec.FIELDS));
    assertEquals(null, Suggest.nearest("cores", HostFactsCodec.FIELDS));
    assertEquals(null, Suggest.nearest("zzzzzzzzzz", HostFactsCodec.FIELDS));
  }

  // --- the bad-input corpus: src/test/resources/host-corpus/bad/*.json, expected.tsv ---

  static Stream<Arguments> corpus() throws IOException {
    Path dir = corpusDir();
    List<String> lines = Files.readAllLines(dir.resolve("expected.tsv"), StandardCharsets.UTF_8);
    return lines.stream()
        .filter(l -> !l.isBlank() && !l.startsWith("#"))
        .map(l -> l.split("\t", -1))
        .map(c -> Arguments.of(c[0], c[1], c[2]));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void corpusCaseIsRefusedWithItsLine(String file, String message, String field)
      throws IOException {
    Path path = corpusDir().resolve(file);
    HostFileException e = assertThrows(HostFileException.class, () -> HostFactsCodec.read(path));
    assertEquals(message.replace("{file}", path.toString()), e.getMessage());
    assertEquals(field, e.field().orElse("-"));
    assertEquals(ExitCodes.USAGE, e.exitCode());
  }

  @Test
  void corpusListsEveryFile() throws IOException {
    List<String> listed = corpus().map(a -> (String) a.get()[0]).sorted().toList();
    try (Stream<Path> files = Files.list(corpusDir())) {
      List<String> present =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".json"))
              .sorted()
              .toList();
      assertEquals(present, listed);
    }
    assertTrue(listed.size() >= 40, "the corpus covers at least 40 cases");
  }

  @Test
  void folderMissingFileAndHugeFileAreRefused(@TempDir Path dir) throws IOException {
    assertEquals(
        dir + ": is a folder, not a host JSON file",
        assertThrows(HostFileException.class, () -> HostFactsCodec.read(dir)).getMessage());
    Path missing = dir.resolve("nope.json");
    assertEquals(
        missing + ": no such file",
        assertThrows(HostFileException.class, () -> HostFactsCodec.read(missing)).getMessage());
    Path huge = dir.resolve("huge.json");
    // Valid JSON padded with whitespace past the limit: refused by size, never parsed.
    Files.writeString(huge, M4_PRO_JSON + " ".repeat(HostFactsCodec.MAX_BYTES));
    assertEquals(
        huge + ": larger than 65536 bytes; a host file is a small JSON object",
        assertThrows(HostFileException.class, () -> HostFactsCodec.read(huge)).getMessage());
    Path exact = dir.resolve("exact.json");
    String padded = M4_PRO_JSON + " ".repeat(HostFactsCodec.MAX_BYTES - M4_PRO_JSON.length());
    Files.writeString(exact, padded);
    assertEquals(M4_PRO, HostFactsCodec.read(exact));
  }

  @Test
  @EnabledOnOs({OS.LINUX, OS.MAC})
  void aDeviceIsNotAHostFile() {
    // refused before it is opened: a FIFO or a terminal would block the read
    assertEquals(
        "/dev/null: is a character device, not a regular file",
        assertThrows(HostFileException.class, () -> HostFactsCodec.read(Path.of("/dev/null")))
            .getMessage());
  }

  @Test
  void danglingSymlinkIsAMissingFile(@TempDir Path dir) throws IOException {
    Path link = Files.createSymbolicLink(dir.resolve("host.json"), dir.resolve("gone.json"));
    assertEquals(
        link + ": no such file",
        assertThrows(HostFileException.class, () -> HostFactsCodec.read(link)).getMessage());
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void tenThousandMutatedFilesRaiseOnlyHostFileExceptions() {
    // A seeded mutator over a canonical file: byte flips, deletions, insertions of JSON-significant
    // characters, duplicated slices. Every result is either valid facts or one typed, one-line
    // error.
    java.util.Random random = new java.util.Random(20261129L);
    byte[] seed = M4_PRO_JSON.getBytes(StandardCharsets.UTF_8);
    byte[] alphabet =
        "{}[]\",:-.0123456789eEtrufalsn \n\\\u00ff".getBytes(StandardCharsets.ISO_8859_1);
    int accepted = 0;
    for (int i = 0; i < 10_000; i++) {
      byte[] b = seed.clone();
      int edits = 1 + random.nextInt(4);
      for (int e = 0; e < edits; e++) {
        int at = random.nextInt(b.length);
        switch (random.nextInt(4)) {
          case 0 -> b[at] = (byte) random.nextInt(256);
          case 1 ->
              b =
                  concat(
                      Arrays.copyOf(b, at),
                      Arrays.copyOfRange(
                          b, Math.min(b.length, at + 1 + random.nextInt(8)), b.length));
          case 2 ->
              b =
                  concat(
                      Arrays.copyOf(b, at),
                      new byte[] {alphabet[random.nextInt(alphabet.length)]},
                      Arrays.copyOfRange(b, at, b.length));
          default -> {
            int len = random.nextInt(Math.max(1, b.length - at));
            b = concat(Arrays.copyOf(b, at + len), Arrays.copyOfRange(b, at, b.length));
          }
        }
        if (b.length == 0) {
          b = new byte[] {'{'};
        }
      }
      String text = new String(b, StandardCharsets.ISO_8859_1);
      try {
        HostFacts f = HostFactsCodec.read(text, "fuzz.json");
        HostFactsCodec.check(f, "fuzz.json");
        assertEquals(f, HostFactsCodec.read(HostFactsCodec.write(f), "again"));
        accepted++;
      } catch (HostFileException e) {
        assertTrue(e.getMessage().startsWith("fuzz.json"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
      }
    }
    assertTrue(accepted < 10_000, "the mutator must produce refusals");
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  static Path corpusDir() {
    return Path.of("src/test/resources/host-corpus/bad");
  }
}
