package dev.strata.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ExitCodes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each class of bad config is refused with file:line:col and one line saying what to do. */
class ConfigErrorsTest {
  private static final String OK = Configs.METAL_TEXT;

  private static String refused(String text) {
    ConfigException e =
        assertThrows(ConfigException.class, () -> ConfigCodec.read(text, "engine.yaml"));
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
    assertTrue(e.getMessage().startsWith("engine.yaml"), e.getMessage());
    return e.getMessage();
  }

  private static String edit(String from, String to) {
    assertTrue(OK.contains(from), from);
    return OK.replace(from, to);
  }

  @Test
  void theSampleIsValid() {
    ConfigCodec.read(OK, "engine.yaml");
  }

  /**
   * One edit of the valid sample ({@code from} → {@code to}, where the two characters {@code \n},
   * {@code \t} and {@code \0} stand for a line break, a tab and U+0000) and the one line that
   * refuses it.
   */
  @ParameterizedTest(name = "{0} → {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          # unknown key
          "  shards:" | "  shard:" | "engine.yaml:6:3: unknown key 'shard' in model (known: shards)"
          "  cpu_cores:" | "  cpu_core:" | "engine.yaml:14:3: unknown key 'cpu_core' in host (did you mean cpu_cores?) (known: os, chip, cpu_cores, perf_cores, efficiency_cores, memory_bytes, gpu_family, metal4, k4, os_version, wired_limit_mb)"
          # missing key
          "  library: /opt/strata/lib/libstrata.dylib\\n" | "" | "engine.yaml:2:1: missing key 'library' in engine (needed: backend, library)"
          "  k4: false\\n" | "" | "engine.yaml:11:1: missing key 'k4' in host (needed: os, chip, cpu_cores, perf_cores, efficiency_cores, memory_bytes, gpu_family, metal4, k4, os_version, wired_limit_mb)"
          # duplicate key
          "  library:" | "  backend: pc\\n  library:" | "engine.yaml:4:3: duplicate key 'backend' in engine (first at line 3); keep one"
          "env: {}\\n" | "env:\\n  A: '1'\\n  A: '2'\\n" | "engine.yaml:30:3: duplicate key 'A' in env (first at line 29); keep one"
          # wrong types
          "cpu_cores: 14" | "cpu_cores: ten" | "engine.yaml:14:14: host.cpu_cores: expected a whole number in decimal, found the text 'ten'"
          "cpu_cores: 14" | "cpu_cores: 0x0E" | "engine.yaml:14:14: host.cpu_cores: expected a whole number in decimal, found the number 0x0E"
          "metal4: true" | "metal4: yes" | "engine.yaml:19:11: host.metal4: expected true or false, found the boolean yes"
          "k4: false" | "k4: 'false'" | "engine.yaml:20:7: host.k4: expected true or false, found the text 'false'"
          "backend: metal" | "backend: 12" | "engine.yaml:3:12: engine.backend: expected text, found the number 12 (quote it, '12', if you mean the text)"
          # numbers in args are their text but booleans are refused
          "- '32768'" | "- true" | "engine.yaml:27:3: args[3]: expected text, found the boolean true (quote it, 'true', if you mean the text)"
          "- '32768'" | "- 1_000" | "engine.yaml:27:3: args: --ctx: '1_000' is not a whole number in 1..1048576"
          # wrong schema version
          "schema: strata.engine/v1" | "schema: strata.engine/v2\\nnew_key: 1" | "engine.yaml:1:9: schema 'strata.engine/v2' is not supported; this toolkit reads strata.engine/v1"
          # tabs in indentation
          "  backend: metal" | "\\tbackend: metal" | "engine.yaml:3:1: a tab indents this line; YAML indents with spaces only (replace the tab with spaces)"
          "  backend: metal" | "  \\tbackend: metal" | "engine.yaml:3:3: a tab indents this line; YAML indents with spaces only (replace the tab with spaces)"
          # anchors aliases and alias bombs
          "backend: metal" | "backend: &b metal" | "engine.yaml:3:12: anchor &b is not allowed: a config holds plain values only (no anchors or aliases; write the value out)"
          # a bad indent gets a hint
          "  library:" | " library:" | "engine.yaml:4:2: YAML syntax error: expected <block end>, but found '<block mapping start>' (while parsing a block mapping); check the indentation at line 4: YAML uses spaces, two per level"
          # syntax errors and second documents
          "backend: metal" | "backend: metal: x" | "engine.yaml:3:17: YAML syntax error: mapping values are not allowed here"
          "backend: metal" | "backend: me\\0tal" | "engine.yaml:3:14: character U+0000 is not allowed here (a config is plain UTF-8 text)"
          # bad flags point at their args item
          "- --ctx" | "- --ctz" | "engine.yaml:26:3: args: unknown flag '--ctz' (did you mean --ctx?)"
          "- '32768'" | "- '0'" | "engine.yaml:27:3: args: --ctx: 0 is out of range (a whole number in 1..1048576)"
          "env: {}" | "- --kv-resident\\nenv: {}" | "engine.yaml:28:3: args: --kv-resident is not accepted by the metal backend (only by pc)"
          "- --model\\n- /models/m-00001-of-00004.gguf" | "- --model\\n- /other.gguf" | "engine.yaml:25:3: args: --model '/other.gguf' is not the first shard of model.shards ('/models/m-00001-of-00004.gguf'); they must name the same file"
          "- --model\\n- /models/m-00001-of-00004.gguf\\n" | "" | "engine.yaml:24:1: args: --model is required (The model: its first shard (NAME-00001-of-0000N.gguf) or its only file.)"
          # bad env points at the key or the value
          "env: {}" | "env:\\n  LD_PRELOAD: /tmp/x.so" | "engine.yaml:29:3: env LD_PRELOAD is refused: it changes how the engine process loads code or files; set it outside the config if you really mean it (see docs/FLAGS.md)"
          "env: {}" | "env:\\n  STRATA_METAL_PROMPT: windows" | "engine.yaml:29:24: env STRATA_METAL_PROMPT: 'windows' is not one of window (did you mean window?)"
          # engine rules
          "backend: metal" | "backend: metl" | "engine.yaml:3:12: engine.backend: 'metl' is not a backend (did you mean metal?) (one of metal, cpu-reference, pc)"
          "os: macos" | "os: macOS" | "engine.yaml:12:7: host.os must be ""macos"" or ""linux"", got ""macOS""\"
          # the host section obeys the host file's rules (HostFactsRules), worded for a config
          "k4: false" | "k4: true" | "engine.yaml:20:7: host.k4 is true but host.gpu_family is 1009: host.k4 means the GPU supports Apple10 (host.gpu_family 1010, M5 class)"
          "efficiency_cores: 4" | "efficiency_cores: 5" | "engine.yaml:15:15: host.perf_cores + host.efficiency_cores (10 + 5) exceed host.cpu_cores (14)"
          "- /models/m-00002-of-00004.gguf" | "- /models/m-00001-of-00004.gguf" | "engine.yaml:8:5: model.shards: '/models/m-00001-of-00004.gguf' is listed twice"
          """)
  void anEditIsRefusedAtItsPlaceWithTheRemedy(String from, String to, String message) {
    assertEquals(message, refused(edit(unescape(from), unescape(to))));
  }

  private static String unescape(String s) {
    return s.replace("\\n", "\n").replace("\\t", "\t").replace("\\0", "\0");
  }

  @Test
  void unknownKey() {
    assertEquals(
        "engine.yaml:1:1: unknown key 'schemas' at the top level (did you mean schema?) (known: schema, engine, model,"
            + " host, args, env)",
        refused("schemas: 1\n" + OK));
  }

  @Test
  void missingKey() {
    assertEquals(
        "engine.yaml:1:1: missing key 'args' at the top level (needed: schema, engine, model,"
            + " host, args)",
        refused(OK.substring(0, OK.indexOf("args:")) + "env: {}\n"));
    assertTrue(refused("engine: {}\n").startsWith("engine.yaml:1:1: missing key 'schema'"));
  }

  @Test
  void wrongTypes() {
    assertEquals(
        "engine.yaml:6:11: model.shards: expected a list (one '- item' per line), found the text"
            + " '/m.gguf'",
        refused(OK.replaceAll("  shards:\n(  - .*\n)+", "  shards: /m.gguf\n")));
    assertEquals(
        "engine.yaml:2:9: engine: expected a mapping (keys indented under it), found the text"
            + " 'metal'",
        refused(
            edit(
                "engine:\n  backend: metal\n  library: /opt/strata/lib/libstrata.dylib\n",
                "engine: metal\n")));
    assertEquals(
        "engine.yaml:1:1: the top level must be a mapping of keys (schema, engine, model, host,"
            + " args, env), found a list",
        refused("- a\n- b\n"));
  }

  @Test
  void numbersInArgsAreTheirTextButBooleansAreRefused() {
    EngineConfig c = ConfigCodec.read(edit("- '32768'", "- 32768"), "engine.yaml");
    assertEquals("32768", c.args().get(3));
    EngineConfig e = ConfigCodec.read(edit("env: {}", "env:\n  STRATA_KV_ROT: 0"), "x");
    assertEquals(Map.of("STRATA_KV_ROT", "0"), e.env());
  }

  @Test
  void emptyFiles() {
    assertEquals(
        "engine.yaml: the file is empty; an engine config starts with 'schema:"
            + " strata.engine/v1'",
        refused(""));
    assertTrue(refused("# only a comment\n\n").contains("the file is empty"));
    assertEquals(
        "engine.yaml:2:1: the top level must be a mapping of keys (schema, engine, model, host,"
            + " args, env), found nothing",
        refused("---\n"));
    assertEquals(
        "engine.yaml:1: the line is longer than 32768 characters; a config has short lines (is"
            + " this the right file?)",
        refused("#" + "x".repeat(40_000) + "\n"));
  }

  @Test
  void tabsInIndentation() {
    assertTrue(
        refused(edit("backend: metal", "backend:\tmetal")).startsWith("engine.yaml:3:"),
        "a tab after the colon");
  }

  @Test
  void tagsThatCouldInstantiateClassesAreRefused() {
    assertEquals(
        "engine.yaml:3:12: tag !!javax.script.ScriptEngineManager is not allowed: a config holds"
            + " plain values only (the only tags are !!str, !!int, !!float, !!bool, !!null)",
        refused(
            edit(
                "backend: metal",
                "backend: !!javax.script.ScriptEngineManager [!!java.net.URLClassLoader"
                    + " [[!!java.net.URL [\"http://x/\"]]]]")));
    assertTrue(refused(edit("backend: metal", "backend: !foo metal")).contains("tag !foo"));
    assertTrue(refused(edit("model:", "model: !!map")).contains("tag !!map"));
    assertTrue(
        refused(edit("backend: metal", "backend: !<tag:evil,2000:x> metal"))
            .contains("tag !<tag:evil,2000:x>"));
    assertTrue(
        refused("%TAG !! tag:evil.com,2000:\n---\n" + OK)
            .contains("directive %TAG is not allowed"));
    // the standard scalar tags are fine: !!str keeps a number as text
    EngineConfig c = ConfigCodec.read(edit("- '32768'", "- !!str 32768"), "x");
    assertEquals("32768", c.args().get(3));
  }

  @Test
  void anchorsAliasesAndAliasBombs() {
    StringBuilder bomb = new StringBuilder("a: &a [x, x, x, x, x, x, x, x, x]\n");
    for (char c = 'b'; c <= 'j'; c++) {
      char p = (char) (c - 1);
      bomb.append(c).append(": &").append(c).append(" [");
      bomb.append(String.join(", ", java.util.Collections.nCopies(9, "*" + p))).append("]\n");
    }
    assertTrue(refused(bomb.toString()).startsWith("engine.yaml:1:4: anchor &a is not allowed"));
  }

  @Test
  void deepNesting() {
    String deep = "schema: strata.engine/v1\nenv: " + "[".repeat(40) + "]".repeat(40) + "\n";
    assertEquals(
        "engine.yaml:2:37: nesting deeper than 32 levels; a config needs 3", refused(deep));
    StringBuilder block = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      block.append(" ".repeat(i)).append("k").append(i).append(":\n");
    }
    assertTrue(refused(block.toString()).contains("nesting deeper than 32 levels"));
  }

  @Test
  void syntaxErrorsAndSecondDocuments() {
    assertTrue(refused(OK + "---\nschema: x\n").contains("a second YAML document"));
    assertTrue(refused("schema: 'open\n").startsWith("engine.yaml:2:1: YAML syntax error"));
  }

  @Test
  void badEnvPointsAtTheKeyOrTheValue() {
    assertTrue(
        refused(edit("env: {}", "env:\n  'A B': x"))
            .startsWith("engine.yaml:29:3: env: 'A B' is not a valid variable name"));
  }

  @Test
  void engineRules() {
    assertTrue(
        refused(edit("  library:", "  sha256: ABC\n  library:"))
            .startsWith("engine.yaml:4:11: engine.sha256: expected 64 lowercase hex digits"));
  }

  @Test
  void files(@TempDir Path dir) throws Exception {
    ConfigException folder = assertThrows(ConfigException.class, () -> ConfigCodec.read(dir));
    assertEquals(
        dir + ": is a folder; give the config file itself (for example engine.yaml)",
        folder.getMessage());
    assertEquals(
        dir.resolve("nope.yaml") + ": no such file",
        assertThrows(ConfigException.class, () -> ConfigCodec.read(dir.resolve("nope.yaml")))
            .getMessage());

    Path exact = dir.resolve("exact.yaml");
    StringBuilder pad = new StringBuilder(OK);
    while (ConfigCodec.MAX_BYTES - pad.length() > 200) {
      pad.append("# ").append("x".repeat(97)).append('\n');
    }
    pad.append("#").append("y".repeat(ConfigCodec.MAX_BYTES - pad.length() - 1)).append('\n');
    String padded = pad.toString();
    Files.writeString(exact, padded, StandardCharsets.UTF_8);
    assertEquals(ConfigCodec.MAX_BYTES, Files.size(exact));
    assertEquals(Configs.metal(), ConfigCodec.read(exact));

    Path big = dir.resolve("big.yaml");
    Files.writeString(big, padded + "\n", StandardCharsets.UTF_8);
    assertEquals(
        big
            + ": is over 1048576 bytes; an engine config is at most 1 MiB (is this the right"
            + " file?)",
        assertThrows(ConfigException.class, () -> ConfigCodec.read(big)).getMessage());

    Path latin1 = dir.resolve("latin1.yaml");
    Files.write(
        latin1, edit("chip: Apple M4 Pro", "chip: Apple M4 Pr\u00e9").getBytes("ISO-8859-1"));
    assertEquals(
        latin1
            + ":13: not UTF-8 text (a bad byte at offset "
            + (OK.indexOf("chip: Apple M4 Pro") + "chip: Apple M4 Pr".length())
            + "); save it as UTF-8",
        assertThrows(ConfigException.class, () -> ConfigCodec.read(latin1)).getMessage());
  }

  @Test
  void writingRefusesWhatReadingWould() {
    EngineConfig bad =
        new EngineConfig(
            EngineConfig.SCHEMA,
            new EngineConfig.Engine("metal", "/lib.dylib", null),
            new EngineConfig.Model(List.of("/m.gguf")),
            Configs.M4_PRO,
            List.of("--model", "/m.gguf"),
            Map.of("DYLD_INSERT_LIBRARIES", "/x.dylib"));
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigCodec.write(bad));
    assertTrue(e.getMessage().startsWith("(config): env DYLD_INSERT_LIBRARIES is refused"));
  }
}
