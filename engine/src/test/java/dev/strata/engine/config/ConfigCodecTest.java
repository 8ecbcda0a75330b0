package dev.strata.engine.config;

import static dev.strata.testsupport.TextAssertions.assertContainsAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigCodecTest {

  @Test
  void writesTheContractShape() {
    assertEquals(Configs.METAL_TEXT, ConfigCodec.write(Configs.metal()));
  }

  @Test
  void readsWhatItWrites() {
    EngineConfig c = Configs.metal();
    assertEquals(c, ConfigCodec.read(Configs.METAL_TEXT, "engine.yaml"));
  }

  @Test
  void kvQ4AppendsExactlyItsPairAtTheEnd() {
    String plain = ConfigCodec.write(Configs.metal());
    String q4 = ConfigCodec.write(Configs.metal("--kv", "q4_0"));
    assertEquals(plain.replace("env: {}\n", "- --kv\n- q4_0\nenv: {}\n"), q4);
  }

  @Test
  void quotesOnlyWhenNeeded() {
    String path = "/Users/José Ñ/My Models/模型 1/m-00001-of-00001.gguf";
    String y =
        ConfigCodec.write(
            Configs.withModel(
                "pc",
                List.of(path),
                Map.of("STRATA_METAL_PROMPT_GEMM", "0", "A", "yes", "B", "a: b", "C", "tab\tx")));
    assertContainsAll(
        y,
        "\n  - " + path + "\n",
        "\n- " + path + "\n",
        "\n- --ctx\n- '8192'\n",
        "\n  STRATA_METAL_PROMPT_GEMM: '0'\n",
        "\n  A: 'yes'\n  B: 'a: b'\n  C: \"tab\\tx\"\n",
        "\n  sha256: abab",
        "\n  chip: 'AMD EPYC 7B13: 64-Core # \"Processor\"'\n");
  }

  /**
   * A format character (a bidi override turns the rest of the line around on a terminal, a
   * zero-width space hides) is written as an escape, so {@code --print} shows the path as it is;
   * the config reads back to the same path, and a config without one keeps its raw Unicode.
   */
  @Test
  void formatCharactersAreWrittenAsEscapes() {
    String rlo = "/Users/me/x\u202Ey/m-00001-of-00001.gguf";
    String zw = "/Users/José/zero\u200Bwidth/m-00001-of-00001.gguf";
    EngineConfig c =
        Configs.withModel("pc", List.of(rlo), Map.of("TAG", "a\uDB40\uDC01b", "NAME", "José"));
    String y = ConfigCodec.write(c);
    assertContainsAll(
        y,
        "\n  - \"/Users/me/x\\u202ey/m-00001-of-00001.gguf\"\n",
        "\n  TAG: \"a\\U000e0001b\"\n",
        "\n  NAME: \"Jos\\xe9\"\n");
    assertTrue(y.codePoints().noneMatch(cp -> Character.getType(cp) == Character.FORMAT), y);
    assertEquals(c, ConfigCodec.read(y, "engine.yaml"));
    String z = ConfigCodec.write(Configs.withModel("pc", List.of(zw), Map.of()));
    assertContainsAll(z, "\"/Users/Jos\\xe9/zero\\u200bwidth/m-00001-of-00001.gguf\"");
    assertEquals(List.of(zw), ConfigCodec.read(z, "engine.yaml").model().shards());
    String plain =
        ConfigCodec.write(Configs.withModel("pc", List.of("/Users/José/m.gguf"), Map.of()));
    assertContainsAll(plain, "\n  - /Users/José/m.gguf\n");
  }

  /** Every config of the list: write → read gives it back, and write → read → write is bytes. */
  @Test
  void aByteOrderMarkInAValueIsRefusedBeforeAnythingIsWritten() {
    // the reader refuses a BOM written as is, and the emitter writes it as is: refused once, here
    ConfigException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ConfigException.class,
            () ->
                ConfigCodec.write(
                    Configs.withModel("pc", List.of("/m/a.gguf"), Map.of("ODD", "x\ufeff"))));
    assertEquals(
        "(config): env.ODD: holds an invisible byte order mark (U+FEFF) at character 2; remove it",
        e.getMessage());
  }

  @Test
  void roundTripsByteForByte() {
    List<EngineConfig> configs = new ArrayList<>();
    configs.add(Configs.metal());
    configs.add(Configs.metal("--experts", "resident", "--kv", "q4_0"));
    List<String> odd =
        List.of(
            "/Users/José Ñ/My Models/模型 1/m-00001-of-00002.gguf",
            "/Volumes/SSD 2/it's # a \"test\": yes/m-00002-of-00002.gguf");
    configs.add(
        Configs.withModel(
            "cpu-reference",
            odd,
            Map.of("STRATA_METAL_PROMPT_GEMM", "0", "OMP_NUM_THREADS", "8", "X_EMPTY", "")));
    for (String s :
        List.of(
            "- leading dash.gguf",
            "-",
            "yes",
            "null",
            "~",
            "true",
            "0x1A",
            "1e3",
            "017",
            "12345",
            ".inf",
            "---",
            "...x",
            "  spaces around  ",
            "tab\there",
            "emoji 🦙 and \u00e9\u0301",
            "a: b",
            "a #b",
            "[x]",
            "{x}",
            "&anchor",
            "*alias",
            "!tag",
            "%percent",
            "@at",
            "`tick`",
            "back\\slash",
            "C:\\Models\\m.gguf",
            "nbsp\u00a0here",
            "bell\u0007 del\u007f c1\u0090 nel\u0085 ls\u2028",
            "=",
            "<<",
            "'quoted'",
            "\"dq\"",
            "ünï",
            "2026-10-15",
            "1:20",
            "+1",
            "0o17")) {
      List<String> shards = List.of("/m/" + s + "/a.gguf", s);
      configs.add(Configs.withModel("pc", shards, Map.of("ODD", s)));
    }
    for (EngineConfig c : configs) {
      String once = ConfigCodec.write(c);
      EngineConfig back = ConfigCodec.read(once, "engine.yaml");
      assertEquals(c, back, once);
      assertEquals(once, ConfigCodec.write(back));
      byte[] bytes = ConfigCodec.writeBytes(c);
      assertArrayEquals(bytes, ConfigCodec.writeBytes(ConfigCodec.read(bytes, "x")));
    }
  }
}
