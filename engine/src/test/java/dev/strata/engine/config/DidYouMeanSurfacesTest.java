package dev.strata.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.EnvPolicy;
import dev.strata.engine.flags.FlagException;
import dev.strata.engine.host.HostFactsCodec;
import dev.strata.engine.host.HostFileException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The one "did you mean" rule ({@code flags.Suggest.nearest}) on every surface that names a word a
 * user typed: engine flags, env switch names and values, a flag's word values, host-file fields,
 * config keys and the config's backend. Each surface is checked for the rule's four parts — one
 * typo, a word begun (3 characters or more that begin exactly one known word), {@code _} and {@code
 * -} read alike with case ignored, and no guess when nothing is near — as the whole line a user
 * reads.
 */
class DidYouMeanSurfacesTest {
  private static final String M = "/models/m-00001-of-00004.gguf";

  /** An engine argv on Metal with {@code flag} (and {@code value}, when given) after --model. */
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          --treads | 4 | "unknown flag '--treads' (did you mean --threads?)"
          --mem-bud | 4 | "unknown flag '--mem-bud' (did you mean --mem-budget-mb?)"
          --N_PREDICT | 4 | "unknown flag '--N_PREDICT' (did you mean --n-predict?)"
          --ctx-size | 4 | "unknown flag '--ctx-size' (did you mean --ctx?)"
          --cache-type-k | q4_0 | "unknown flag '--cache-type-k' (did you mean --kv?)"
          --ctx-sise | 4 | "unknown flag '--ctx-sise' (known: --model --ctx --experts --threads --mem-budget-mb --spec --suffix-draft --kv-resident --parallel --prompt-tokens --n-predict --fault --kv)"
          --experts | resdent | "--experts: 'resdent' is not one of stream, resident (did you mean resident?)"
          --experts | res | "--experts: 'res' is not one of stream, resident (did you mean resident?)"
          --kv | Q4-0 | "--kv: 'Q4-0' is not one of fp16, int8, q4_0, k8v4 (did you mean q4_0?)"
          --kv | iq2_xxs | "--kv: 'iq2_xxs' is not one of fp16, int8, q4_0, k8v4"
          """)
  void aFlagOrAWordValue(String flag, String value, String message) {
    FlagException e =
        assertThrows(
            FlagException.class,
            () -> EngineFlags.parse(List.of("--model", M, flag, value), Backend.METAL));
    assertEquals(message, e.getMessage());
  }

  /** An env a config sets: the switch's name, then its value. */
  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          STRATA_KV_RTO | 1 | "env: unknown switch STRATA_KV_RTO (did you mean STRATA_KV_ROT?)"
          STRATA_METAL_PROMPT_G | 1 | "env: unknown switch STRATA_METAL_PROMPT_G (did you mean STRATA_METAL_PROMPT_GEMM?)"
          STRATA_kv_rot | 1 | "env: unknown switch STRATA_kv_rot (did you mean STRATA_KV_ROT?)"
          strata_kv_rot | 1 | "env: unknown switch strata_kv_rot (did you mean STRATA_KV_ROT?)"
          Strata_Debug | 1 | "env: unknown switch Strata_Debug (known: STRATA_METAL_PROMPT, STRATA_METAL_PROMPT_GEMM, STRATA_KV_ROT)"
          STRATA_DEBUG | 1 | "env: unknown switch STRATA_DEBUG (known: STRATA_METAL_PROMPT, STRATA_METAL_PROMPT_GEMM, STRATA_KV_ROT)"
          STRATA_METAL_PROMPT | windw | "env STRATA_METAL_PROMPT: 'windw' is not one of window (did you mean window?)"
          STRATA_METAL_PROMPT | win | "env STRATA_METAL_PROMPT: 'win' is not one of window (did you mean window?)"
          STRATA_METAL_PROMPT | WINDOW | "env STRATA_METAL_PROMPT: 'WINDOW' is not one of window (did you mean window?)"
          STRATA_METAL_PROMPT | tiles | "env STRATA_METAL_PROMPT: 'tiles' is not one of window"
          """)
  void anEnvSwitchOrItsValue(String name, String value, String message) {
    FlagException e =
        assertThrows(FlagException.class, () -> EnvPolicy.validate(Map.of(name, value)));
    assertEquals(message, e.getMessage());
  }

  /** The M4 Pro's host file as the probe writes it (canonical: one field a line, from line 2). */
  private static final String HOST_JSON = HostFactsCodec.write(Configs.M4_PRO);

  private static final String HOST_FIELDS =
      "(known: os, chip, cpu_cores, perf_cores, efficiency_cores, memory_bytes, gpu_family,"
          + " metal4, k4, os_version, wired_limit_mb)";

  /** A host JSON file with its {@code "field"} key renamed to {@code typed}. */
  @ParameterizedTest(name = "{1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          perf_cores | perf_coers | "h.json:5:3: unknown field 'perf_coers' (did you mean perf_cores?)"
          efficiency_cores | efficiency | "h.json:6:3: unknown field 'efficiency' (did you mean efficiency_cores?)"
          wired_limit_mb | Wired-Limit-MB | "h.json:12:3: unknown field 'Wired-Limit-MB' (did you mean wired_limit_mb?)"
          gpu_family | gpu | "h.json:8:3: unknown field 'gpu' (did you mean gpu_family?)"
          gpu_family | family | "h.json:8:3: unknown field 'family'"
          """)
  void aHostFileField(String field, String typed, String message) {
    String json = HOST_JSON.replace("\"" + field + "\"", "\"" + typed + "\"");
    assertTrue(json.contains(typed), typed);
    HostFileException e =
        assertThrows(HostFileException.class, () -> HostFactsCodec.read(json, "h.json"));
    assertEquals(message + " " + HOST_FIELDS, e.getMessage());
  }

  /** The sample config with {@code from} replaced by {@code to}. */
  @ParameterizedTest(name = "{1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          "  library:" | "  libary:" | "c.yaml:4:3: unknown key 'libary' in engine (did you mean library?) (known: backend, library, sha256)"
          "  library:" | "  lib:" | "c.yaml:4:3: unknown key 'lib' in engine (did you mean library?) (known: backend, library, sha256)"
          "  wired_limit_mb:" | "  wired-limit-mb:" | "c.yaml:23:3: unknown key 'wired-limit-mb' in host (did you mean wired_limit_mb?) (known: os, chip, cpu_cores, perf_cores, efficiency_cores, memory_bytes, gpu_family, metal4, k4, os_version, wired_limit_mb)"
          "  os_version:" | "  OS_Version:" | "c.yaml:22:3: unknown key 'OS_Version' in host (did you mean os_version?) (known: os, chip, cpu_cores, perf_cores, efficiency_cores, memory_bytes, gpu_family, metal4, k4, os_version, wired_limit_mb)"
          "  sha256:" | "  hash:" | "c.yaml:5:3: unknown key 'hash' in engine (known: backend, library, sha256)"
          "backend: metal" | "backend: cpu_reference" | "c.yaml:3:12: engine.backend: 'cpu_reference' is not a backend (did you mean cpu-reference?) (one of metal, cpu-reference, pc)"
          "backend: metal" | "backend: cpu" | "c.yaml:3:12: engine.backend: 'cpu' is not a backend (did you mean cpu-reference?) (one of metal, cpu-reference, pc)"
          "backend: metal" | "backend: Metal" | "c.yaml:3:12: engine.backend: 'Metal' is not a backend (did you mean metal?) (one of metal, cpu-reference, pc)"
          "backend: metal" | "backend: cuda" | "c.yaml:3:12: engine.backend: 'cuda' is not a backend (one of metal, cpu-reference, pc)"
          """)
  void aConfigKeyOrTheBackend(String from, String to, String message) {
    String text = WITH_SHA.replace(from, to);
    assertTrue(text.contains(to.strip()), to);
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigCodec.read(text, "c.yaml"));
    assertEquals(message, e.getMessage());
  }

  /** The contract's sample with a pinned library, so the engine section has all three keys. */
  private static final String WITH_SHA =
      Configs.METAL_TEXT.replace(
          "  library: /opt/strata/lib/libstrata.dylib\n",
          "  library: /opt/strata/lib/libstrata.dylib\n  sha256: " + "ab".repeat(32) + "\n");
}
