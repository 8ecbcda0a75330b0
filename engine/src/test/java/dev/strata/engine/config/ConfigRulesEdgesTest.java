package dev.strata.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Config rules at their edges, each refusal at the line of the value it names: invisible byte order
 * marks in paths and args, the path length, host numbers at 0/1 and at the int range, the first
 * argument's position, and the writer quoting what a plain scalar cannot hold.
 */
class ConfigRulesEdgesTest {
  private static final String LIB = "library: /opt/strata/lib/libstrata.dylib";

  private static ConfigException refused(String text) {
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigCodec.read(text, "c.yaml"));
    assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    return e;
  }

  private static String with(String from, String to) {
    assertTrue(Configs.METAL_TEXT.contains(from), from);
    return Configs.METAL_TEXT.replace(from, to);
  }

  @Test
  void aByteOrderMarkInAPathOrAnArgIsNamed() {
    ConfigException lib = refused(with(LIB, "library: \"\\uFEFF/opt/strata/lib/libstrata.dylib\""));
    assertEquals(
        "c.yaml:4:12: engine.library: holds an invisible byte order mark (U+FEFF) at character 1;"
            + " remove it",
        lib.getMessage());
    ConfigException shard =
        refused(with("- /models/m-00003-of-00004.gguf", "- \"/models/m-3\\uFEFF.gguf\""));
    assertEquals(9, shard.where().line(), shard.getMessage());
    assertTrue(
        shard
            .detail()
            .startsWith(
                "model.shards[2]: holds an invisible byte order mark (U+FEFF)"
                    + " at character 12"),
        shard.getMessage());
    ConfigException arg = refused(with("- --ctx\n", "- \"--ctx\\uFEFF\"\n"));
    assertEquals(26, arg.where().line(), arg.getMessage());
    assertTrue(
        arg.detail().startsWith("args: holds an invisible byte order mark"), arg.getMessage());
  }

  @Test
  void aLibraryPathOverPathMaxIsRefused() {
    String longest = "/" + "l".repeat(4095);
    assertEquals(
        longest, ConfigCodec.read(with(LIB, "library: " + longest), "c").engine().library());
    ConfigException e = refused(with(LIB, "library: " + longest + "l"));
    assertEquals(4, e.where().line());
    assertEquals("engine.library: the path is 4097 bytes long (at most 4096)", e.detail());
  }

  @Test
  void aBadFirstArgumentIsPointedAt() {
    ConfigException e = refused(with("- --model\n", "- --mdoel\n"));
    assertEquals(24, e.where().line(), e.getMessage());
    assertEquals(3, e.where().column(), e.getMessage()); // the item, not the list
    assertTrue(e.detail().startsWith("args: "), e.getMessage());
  }

  @Test
  void aHostHasAtLeastOneCpuAndSomeMemory() {
    String oneCpu =
        with("cpu_cores: 14", "cpu_cores: 1")
            .replace("perf_cores: 10", "perf_cores: 1")
            .replace("efficiency_cores: 4", "efficiency_cores: 0");
    assertEquals(1, ConfigCodec.read(oneCpu, "c").host().cpuCores());
    ConfigException cpu = refused(with("cpu_cores: 14", "cpu_cores: 0"));
    assertEquals("c.yaml:14:14: host.cpu_cores must be 1..8192, got 0", cpu.getMessage());
    assertEquals(
        1,
        ConfigCodec.read(with("memory_bytes: 51539607552", "memory_bytes: 1"), "c")
            .host()
            .memoryBytes());
    ConfigException mem = refused(with("memory_bytes: 51539607552", "memory_bytes: 0"));
    assertEquals("host.memory_bytes must be above 0, got 0", mem.detail());
  }

  @Test
  void aNegativeOrHugeHostValueGetsTheHostFilesWordsOrItsRange() {
    // negatives: the host rule's own words, as a host file gets them
    assertEquals(
        "host.memory_bytes must be above 0, got -1",
        refused(with("memory_bytes: 51539607552", "memory_bytes: -1")).detail());
    assertEquals(
        "host.wired_limit_mb must be 0 (OS default) or more, got -5",
        refused(with("wired_limit_mb: 0", "wired_limit_mb: -5")).detail());
    // past a long: digits all the same, so out of range, not "not a whole number"
    assertEquals(
        "host.memory_bytes: 99999999999999999999999 is out of range (at most 2^63-1)",
        refused(with("memory_bytes: 51539607552", "memory_bytes: 99999999999999999999999"))
            .detail());
  }

  @Test
  void aHostCountOutsideAnIntIsTooLarge() {
    int max = Integer.MAX_VALUE;
    // an int, so read; then the host rule's own bound (HostFactsRules.MAX_CPUS) refuses it
    ConfigException big = refused(with("cpu_cores: 14", "cpu_cores: " + max));
    assertEquals("host.cpu_cores must be 1..8192, got " + max, big.detail());
    ConfigException over = refused(with("cpu_cores: 14", "cpu_cores: " + (max + 1L)));
    assertEquals("host.cpu_cores: 2147483648 is out of range (at most 2147483647)", over.detail());
    // the int's own minimum is an int (refused by the host rule, as a host file words it); one
    // below is not
    ConfigException min = refused(with("cpu_cores: 14", "cpu_cores: " + Integer.MIN_VALUE));
    assertEquals("host.cpu_cores must be 1..8192, got -2147483648", min.detail());
    ConfigException below =
        refused(with("cpu_cores: 14", "cpu_cores: " + (Integer.MIN_VALUE - 1L)));
    assertEquals(
        "host.cpu_cores: -2147483649 is out of range (at least -2147483648)", below.detail());
  }

  @Test
  void theWriterQuotesWhatAPlainScalarCannotHold() {
    for (String odd : List.of("a\tb", "a\u0085b", "a\u2028b", "a\u2029b", "x\u0001")) {
      EngineConfig c =
          Configs.withModel("metal", List.of("/models/m-00001-of-00002.gguf"), Map.of("V", odd));
      String text = ConfigCodec.write(c);
      assertTrue(text.contains("V: \""), text);
      assertTrue(
          text.codePoints()
              .allMatch(
                  cp ->
                      cp == '\n'
                          || (cp >= 0x20 && cp < 0x7f)
                          || cp > 0xA0 && cp != 0x2028 && cp != 0x2029),
          text);
    }
    EngineConfig tab =
        Configs.withModel("metal", List.of("/models/m-00001-of-00002.gguf"), Map.of("V", "a\tb"));
    assertEquals(Map.of("V", "a\tb"), ConfigCodec.read(ConfigCodec.write(tab), "c").env());
  }

  @Test
  void aFractionWhereACountGoesIsNamedAsANumber() {
    ConfigException e = refused(with("cpu_cores: 14", "cpu_cores: 1.5"));
    assertEquals(
        "c.yaml:14:14: host.cpu_cores: expected a whole number in decimal, found the number 1.5",
        e.getMessage());
  }
}
