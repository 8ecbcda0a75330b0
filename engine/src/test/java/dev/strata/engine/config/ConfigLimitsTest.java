package dev.strata.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The config codec's limits at their boundaries: the limit accepted, the limit + 1 refused with one
 * line and exit code 2. The numbers are the documented ones written out here (ConfigReader: 1 MiB
 * file, 32768-character lines, 32 levels of nesting; ConfigRules: host texts of 256 characters),
 * not read from the constants, so moving a limit fails this test.
 */
class ConfigLimitsTest {
  @TempDir Path dir;

  private static final int EXIT_USAGE = 2;
  private static final int FILE_LIMIT = 1024 * 1024;
  private static final int LINE_LIMIT = 32 * 1024;
  private static final int DEPTH_LIMIT = 32;
  private static final int HOST_TEXT_LIMIT = 256;

  /** The contract's example padded with comment lines (each at most 1000 bytes) to n bytes. */
  private static byte[] padded(int n) {
    StringBuilder sb = new StringBuilder(Configs.METAL_TEXT);
    while (sb.length() < n) {
      int room = n - sb.length();
      // a comment line is "#" + text + "\n": at least 2 bytes
      int len = Math.min(1000, room);
      if (room - len == 1) {
        len--; // never leave a single byte
      }
      sb.append('#').append("x".repeat(len - 2)).append('\n');
    }
    byte[] b = sb.toString().getBytes(StandardCharsets.US_ASCII);
    assertEquals(n, b.length);
    return b;
  }

  private static ConfigException refused(Executable run) {
    ConfigException e = assertThrows(ConfigException.class, run::run);
    assertEquals(EXIT_USAGE, e.exitCode(), e.getMessage());
    assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    return e;
  }

  private interface Executable {
    void run() throws Exception;
  }

  @Test
  void aConfigOfOneMibReadsAndOneByteMoreIsRefused() throws IOException {
    Path ok = dir.resolve("ok.yaml");
    Files.write(ok, padded(FILE_LIMIT));
    assertEquals("metal", ConfigCodec.read(ok).engine().backend());
    assertEquals("metal", ConfigCodec.read(padded(FILE_LIMIT), "ok").engine().backend());

    Path big = dir.resolve("big.yaml");
    Files.write(big, padded(FILE_LIMIT + 1));
    ConfigException e = refused(() -> ConfigCodec.read(big));
    assertTrue(e.getMessage().contains("is over 1048576 bytes"), e.getMessage());
    refused(() -> ConfigCodec.read(padded(FILE_LIMIT + 1), "big"));
    refused(
        () ->
            ConfigCodec.read(new String(padded(FILE_LIMIT + 1), StandardCharsets.US_ASCII), "big"));
  }

  @Test
  void aLineOf32768CharactersReadsAndOneMoreIsRefused() {
    String atLimit = Configs.METAL_TEXT + "#" + "x".repeat(LINE_LIMIT - 1) + "\n";
    assertEquals("metal", ConfigCodec.read(atLimit, "ok").engine().backend());
    String over = Configs.METAL_TEXT + "#" + "x".repeat(LINE_LIMIT) + "\n";
    ConfigException e = refused(() -> ConfigCodec.read(over, "long"));
    assertTrue(e.getMessage().contains("longer than 32768 characters"), e.getMessage());
  }

  /** A mapping (level 1) holding lists nested to {@code depth} levels in all. */
  private static String nested(int depth) {
    return "a: " + "[".repeat(depth - 1) + "]".repeat(depth - 1) + "\n";
  }

  @Test
  void thirtyTwoLevelsOfNestingParseAndThirtyThreeAreRefused() {
    assertNotNull(
        YamlReader.parse(
            nested(DEPTH_LIMIT),
            ConfigReader.LIMITS,
            (line, column, detail) -> new ConfigException("deep", line, column, detail)));
    ConfigException e =
        refused(
            () ->
                YamlReader.parse(
                    nested(DEPTH_LIMIT + 1),
                    ConfigReader.LIMITS,
                    (line, column, detail) -> new ConfigException("deep", line, column, detail)));
    assertTrue(e.getMessage().contains("nesting deeper than 32 levels"), e.getMessage());
    // through the codec too: refused for its depth, not for the unknown key
    ConfigException c = refused(() -> ConfigCodec.read(nested(DEPTH_LIMIT + 1), "deep"));
    assertTrue(c.getMessage().contains("nesting deeper than 32 levels"), c.getMessage());
  }

  @Test
  void aHostTextOf256CharactersIsValidAndOneMoreIsRefused() {
    String chip = "chip: Apple M4 Pro";
    String atLimit = Configs.METAL_TEXT.replace(chip, "chip: " + "C".repeat(HOST_TEXT_LIMIT));
    assertEquals(HOST_TEXT_LIMIT, ConfigCodec.read(atLimit, "ok").host().chip().length());
    String over = Configs.METAL_TEXT.replace(chip, "chip: " + "C".repeat(HOST_TEXT_LIMIT + 1));
    ConfigException e = refused(() -> ConfigCodec.read(over, "chip"));
    assertTrue(e.getMessage().endsWith("host.chip is longer than 256 characters"), e.getMessage());
  }

  @Test
  void aHostTextWithAControlOrFormatCharacterIsRefusedByName() {
    String chip = "chip: Apple M4 Pro";
    // U+202E (right-to-left override, a format character) and ESC: short values, so the message
    // names the character class, not the length (a config and a host file share the rule)
    for (String bad : new String[] {"\"Apple \\u202EM4\"", "\"Apple \\e[31mM4\""}) {
      ConfigException e =
          refused(() -> ConfigCodec.read(Configs.METAL_TEXT.replace(chip, "chip: " + bad), "c"));
      assertTrue(
          e.getMessage().endsWith("host.chip must not contain control or format characters"),
          e.getMessage());
    }
  }
}
