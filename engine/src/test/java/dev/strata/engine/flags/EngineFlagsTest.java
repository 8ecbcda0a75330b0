package dev.strata.engine.flags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EngineFlagsTest {
  private static final String M = "/models/m-00001-of-00004.gguf";

  private static List<String> argv(String... rest) {
    List<String> a = new ArrayList<>(List.of("--model", M));
    a.addAll(List.of(rest));
    return a;
  }

  private static FlagException refused(Backend b, List<String> argv) {
    FlagException e = assertThrows(FlagException.class, () -> EngineFlags.parse(argv, b));
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
    return e;
  }

  /** A refusal on Metal that points at argument {@code index} (from 0): its message. */
  private static String refusedAt(int index, List<String> argv) {
    FlagException e = refused(Backend.METAL, argv);
    assertEquals(index, e.place().argIndex(), e.getMessage());
    return e.getMessage();
  }

  private static Backend anyAccepting(FlagSpec f) {
    return f.backends().iterator().next();
  }

  // ------------------------------------------------------------- the table walk

  @Test
  void tableHasUniqueNamesAndHelpForEveryFlagAndUniqueEnvSwitches() {
    Set<String> names = new HashSet<>();
    Set<String> envs = new HashSet<>();
    for (FlagSpec f : EngineFlags.flags()) {
      assertTrue(names.add(f.name()), "duplicate flag " + f.name());
      assertTrue(f.help().endsWith("."), "help of " + f.name() + " is one sentence or more");
      assertTrue(f.help().length() > 15, "help of " + f.name());
      assertFalse(f.backends().isEmpty(), f.name());
      assertEquals(f.isSwitch(), f.metavar().isEmpty(), f.name());
    }
    for (EnvSwitch s : EnvPolicy.switches()) {
      assertTrue(envs.add(s.name()), "duplicate env var " + s.name());
      assertTrue(s.name().startsWith(EnvPolicy.OWN_PREFIX), s.name());
      assertFalse(s.help().isBlank(), s.name());
      assertFalse(s.values().isEmpty(), s.name());
    }
  }

  @Test
  void theFlagsAreExactlyTheContractsAndKvIsLast() {
    List<String> names = EngineFlags.flags().stream().map(FlagSpec::name).toList();
    assertEquals(
        Set.of(
            "--model",
            "--ctx",
            "--experts",
            "--threads",
            "--mem-budget-mb",
            "--kv",
            "--spec",
            "--suffix-draft",
            "--kv-resident",
            "--parallel",
            "--prompt-tokens",
            "--n-predict",
            "--fault"),
        Set.copyOf(names));
    assertEquals("--kv", names.getLast());
    assertEquals(
        List.of("STRATA_METAL_PROMPT", "STRATA_METAL_PROMPT_GEMM", "STRATA_KV_ROT"),
        EnvPolicy.switches().stream().map(EnvSwitch::name).toList());
    assertEquals(Set.of(Backend.PC), EngineFlags.lookup("--kv-resident").backends());
    assertEquals(Set.of(Backend.CPU_REFERENCE), EngineFlags.lookup("--fault").backends());
    assertEquals(Set.of(Backend.CPU_REFERENCE), EngineFlags.lookup("--n-predict").backends());
    assertEquals(Set.of(Backend.CPU_REFERENCE), EngineFlags.lookup("--parallel").backends());
  }

  @Test
  void everyDefaultIsValidUnderItsOwnKind() {
    for (FlagSpec f : EngineFlags.flags()) {
      if (f.defaultValue() != null) {
        assertNull(f.kind().problem(f.defaultValue()), f.name() + " default " + f.defaultValue());
      } else {
        // no default: required, or a switch / choice whose absence means "not set"
        assertTrue(f.required() || f.isSwitch() || f.kind() instanceof ValueKind.Choice, f.name());
        assertFalse(f.defaultNote().isBlank(), f.name() + " says what absence means");
      }
    }
  }

  @Test
  void everyChoiceAndRangeEndRendersAndParsesBack() {
    for (FlagSpec f : EngineFlags.flags()) {
      if (f.required()) {
        continue;
      }
      List<String> values =
          switch (f.kind()) {
            case ValueKind.Choice c -> c.values();
            case ValueKind.IntRange r ->
                List.of(Long.toString(r.min()), Long.toString(r.max()), f.defaultValue());
            case ValueKind.Switch _ -> List.of("");
            case ValueKind.PathValue _ -> List.of("/a path/with spaces é.gguf");
          };
      for (String v : values) {
        Backend b = anyAccepting(f);
        Map<String, String> given = new java.util.HashMap<>(Map.of("--model", M, f.name(), v));
        List<String> room = EngineArgsTest.room(f.name());
        for (int i = 0; i < room.size(); i += 2) {
          given.put(room.get(i), room.get(i + 1)); // strata-ref's pool must hold the workload
        }
        List<String> rendered = EngineFlags.render(given, b);
        EngineArgs args = EngineFlags.parse(rendered, b);
        assertEquals(v, args.valueOf(f.name()), f.name() + " " + v);
        assertEquals(args, EngineFlags.parse(args.toArgv(), b), f.name() + " " + v);
      }
    }
  }

  @Test
  void absentFlagsTakeTheirDefaults() {
    EngineArgs a = EngineFlags.parse(argv(), Backend.METAL);
    assertEquals(Path.of(M), a.model());
    assertEquals(4096, a.ctx());
    assertEquals(ExpertsMode.STREAM, a.experts());
    assertEquals(0, a.threads());
    assertEquals(0, a.memBudgetMb());
    assertNull(a.kv());
    assertEquals(0, a.spec());
    assertEquals(0, a.suffixDraft());
    assertFalse(a.kvResident());
    assertEquals(512, a.promptTokens());
    assertEquals(64, a.nPredict());
    assertNull(a.fault());
    assertEquals(List.of("--model", M), a.toArgv());
  }

  @Test
  void typedValues() {
    EngineArgs a =
        EngineFlags.parse(
            argv(
                "--kv",
                "q4_0",
                "--ctx",
                "32768",
                "--experts",
                "resident",
                "--threads",
                "8",
                "--mem-budget-mb",
                "40960",
                "--spec",
                "2",
                "--suffix-draft",
                "0",
                "--prompt-tokens",
                "100",
                "--n-predict",
                "3",
                "--fault",
                "segv"),
            Backend.CPU_REFERENCE);
    assertEquals(KvFormat.Q4_0, a.kv());
    assertEquals(32768, a.ctx());
    assertEquals(ExpertsMode.RESIDENT, a.experts());
    assertEquals(8, a.threads());
    assertEquals(40960L, a.memBudgetMb());
    assertEquals(2, a.spec());
    assertEquals(100, a.promptTokens());
    assertEquals(3, a.nPredict());
    assertEquals(EngineArgs.Fault.SEGV, a.fault());
    assertTrue(EngineFlags.parse(argv("--kv-resident"), Backend.PC).kvResident());
  }

  // ------------------------------------------------------------- refusals

  @Test
  void unknownFlagGetsADidYouMean() {
    assertEquals("unknown flag '--ctz' (did you mean --ctx?)", refusedAt(2, argv("--ctz", "8192")));
    assertTrue(
        refused(Backend.METAL, argv("--temperature", "1"))
            .getMessage()
            .startsWith("unknown flag '--temperature' (known: --model --ctx"));
  }

  @Test
  void missingValueNamesTheFlagAndWhatItTakes() {
    assertEquals(
        "--ctx: missing value (a whole number in 1..1048576)",
        refusedAt(2, argv("--ctx", "--kv", "q4_0")));
  }

  @Test
  void badValuesNameTheAllowedValuesOrRange() {
    assertEquals(
        "--ctx: 0 is out of range (a whole number in 1..1048576)",
        refusedAt(3, argv("--ctx", "0")));
    assertEquals(
        "--model: the path contains a line break",
        refused(Backend.METAL, List.of("--model", "a\nb")).getMessage());
    assertEquals(
        "--model: the path is empty", refused(Backend.METAL, List.of("--model", "")).getMessage());
  }

  @Test
  void k8v4PassesTheFlagChecksBecauseItsRefusalIsPreflights() {
    assertEquals(KvFormat.K8V4, EngineFlags.parse(argv("--kv", "k8v4"), Backend.METAL).kv());
  }

  @Test
  void aFlagTheBackendDoesNotTakeIsAnError() {
    assertEquals(
        "--kv-resident is not accepted by the metal backend (only by pc)",
        refusedAt(2, argv("--kv-resident")));
    // null backend: the union
    assertTrue(EngineFlags.parse(argv("--kv-resident"), null).kvResident());
  }

  @Test
  void duplicatesStrayWordsEqualsSignsAndNoModel() {
    assertEquals(
        "--ctx is given twice (arguments 3 and 5); keep one",
        refusedAt(4, argv("--ctx", "1", "--ctx", "2")));
    assertEquals(
        "unexpected argument 'q4_0' (flags start with --, and each takes one value)",
        refused(Backend.METAL, argv("--kv", "int8", "q4_0")).getMessage());
    FlagException noModel = refused(Backend.METAL, List.of("--ctx", "4096"));
    assertTrue(noModel.getMessage().startsWith("--model is required"), noModel.getMessage());
    assertEquals(-1, noModel.place().argIndex());
  }

  /**
   * A flag (and its value, when it has one) after {@code --model} that the backend refuses: the one
   * line that says why and what it takes.
   */
  @ParameterizedTest(name = "{0}: {1} {2}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          # unknown flag gets a did you mean
          PC | --kv-resdient |  | "unknown flag '--kv-resdient' (did you mean --kv-resident?)"
          # missing value names the flag and what it takes
          METAL | --ctx |  | "--ctx: missing value (a whole number in 1..1048576)"
          METAL | --experts |  | "--experts: missing value (one of stream, resident)"
          # bad values name the allowed values or range
          METAL | --ctx | 32k | "--ctx: '32k' is not a whole number in 1..1048576"
          METAL | --ctx | 0x8000 | "--ctx: '0x8000' is not a whole number in 1..1048576"
          METAL | --ctx | -1 | "--ctx: '-1' is not a whole number in 1..1048576"
          METAL | --ctx | 99999999999999999 | "--ctx: 99999999999999999 is out of range (a whole number in 1..1048576)"
          METAL | --experts | streem | "--experts: 'streem' is not one of stream, resident (did you mean stream?)"
          METAL | --kv | q8_0 | "--kv: 'q8_0' is not one of fp16, int8, q4_0, k8v4 (did you mean q4_0?)"
          METAL | --spec | 17 | "--spec: 17 is out of range (a whole number in 0..16)"
          # a flag the backend does not take is an error
          PC | --fault | segv | "--fault is not accepted by the pc backend (only by cpu-reference)"
          METAL | --prompt-tokens | 5 | "--prompt-tokens is not accepted by the metal backend (only by cpu-reference)"
          # duplicates stray words equals signs and no model
          METAL | --ctx=4096 |  | "write --ctx and its value as two arguments, not '--ctx=4096' (a flag takes its value as the next argument)"
          """)
  void aBadFlagOrValueIsOneLineSayingWhatItTakes(
      Backend backend, String flag, String value, String message) {
    List<String> args = value == null ? argv(flag) : argv(flag, value);
    assertEquals(message, refused(backend, args).getMessage());
  }

  // ------------------------------------------------------------- rendering

  @Test
  void renderFollowsTableOrderSoKvIsAppendedLast() {
    Map<String, String> base = new LinkedHashMap<>();
    base.put("--spec", "2");
    base.put("--ctx", "32768");
    base.put("--model", M);
    base.put("--experts", "stream");
    base.put("--suffix-draft", "0");
    List<String> plain = EngineFlags.render(base, Backend.METAL);
    assertEquals(
        List.of(
            "--model",
            M,
            "--ctx",
            "32768",
            "--experts",
            "stream",
            "--spec",
            "2",
            "--suffix-draft",
            "0"),
        plain);
    Map<String, String> withKv = new LinkedHashMap<>();
    withKv.put("--kv", "q4_0");
    withKv.putAll(base);
    List<String> expected = new ArrayList<>(plain);
    expected.addAll(List.of("--kv", "q4_0"));
    assertEquals(expected, EngineFlags.render(withKv, Backend.METAL));
  }

  @Test
  void renderRefusesWhatParseRefuses() {
    assertEquals(
        "unknown flag '--ctz' (did you mean --ctx?)",
        assertThrows(
                FlagException.class,
                () -> EngineFlags.render(Map.of("--model", M, "--ctz", "1"), Backend.METAL))
            .getMessage());
    assertThrows(
        FlagException.class,
        () -> EngineFlags.render(Map.of("--model", M, "--ctx", "0"), Backend.METAL));
    assertThrows(
        FlagException.class,
        () -> EngineFlags.render(Map.of("--model", M, "--kv-resident", ""), Backend.METAL));
    assertThrows(
        FlagException.class,
        () -> EngineFlags.render(Map.of("--model", M, "--kv-resident", "yes"), Backend.PC));
  }

  // ------------------------------------------------------------- env

  private static FlagException envRefused(String name, String value) {
    FlagException e =
        assertThrows(FlagException.class, () -> EnvPolicy.validate(Map.of(name, value)));
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertEquals(name, e.place().envName());
    assertFalse(e.getMessage().contains("\n"));
    return e;
  }

  @Test
  void envSwitchesAndOrdinaryNamesPass() {
    EnvPolicy.validate(
        Map.of(
            "STRATA_METAL_PROMPT", "window",
            "STRATA_METAL_PROMPT_GEMM", "0",
            "STRATA_KV_ROT", "1",
            "OMP_NUM_THREADS", "8",
            "_private", "",
            "MTL_HUD_ENABLED", "1"));
  }

  @Test
  void namesThatChangeHowCodeLoadsAreRefused() {
    for (String n :
        List.of(
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "ld_audit",
            "DYLD_INSERT_LIBRARIES",
            "DYLD_LIBRARY_PATH",
            "JAVA_TOOL_OPTIONS",
            "_JAVA_OPTIONS",
            "JDK_JAVA_OPTIONS",
            "MallocStackLogging",
            "MALLOC_CHECK_",
            "GCONV_PATH",
            "GLIBC_TUNABLES",
            "PATH",
            "CLASSPATH")) {
      FlagException e = envRefused(n, "x");
      assertTrue(e.getMessage().startsWith("env " + n + " is refused: it changes how"), n);
      assertFalse(e.place().envValue());
    }
  }

  @Test
  void badNamesAndValuesAreRefused() {
    assertTrue(envRefused("1ABC", "x").getMessage().contains("is not a valid variable name"));
    assertTrue(envRefused("A-B", "x").getMessage().contains("is not a valid variable name"));
    assertTrue(envRefused("A B", "x").getMessage().contains("is not a valid variable name"));
    assertTrue(envRefused("A=B", "x").getMessage().contains("is not a valid variable name"));
    assertTrue(envRefused("X".repeat(129), "x").getMessage().contains("at most 128"));
    assertEquals(
        "env: unknown switch STRATA_METAL_PROMT (did you mean STRATA_METAL_PROMPT?)",
        envRefused("STRATA_METAL_PROMT", "window").getMessage());
    FlagException v = envRefused("STRATA_METAL_PROMPT", "windows");
    assertEquals(
        "env STRATA_METAL_PROMPT: 'windows' is not one of window (did you mean window?)",
        v.getMessage());
    assertTrue(v.place().envValue());
    assertEquals(
        "env FOO: the value contains a line break", envRefused("FOO", "a\nb").getMessage());
    assertEquals(
        "env FOO: the value contains a NUL character", envRefused("FOO", "a\0b").getMessage());
    assertEquals(
        "env FOO: the value is 4097 bytes long (at most 4096)",
        envRefused("FOO", "x".repeat(4097)).getMessage());
  }

  @Test
  void suggestions() {
    assertEquals("--ctx", Suggest.nearest("--ctz", List.of("--ctx", "--kv")));
    assertEquals("--threads", Suggest.nearest("--thraeds", List.of("--ctx", "--threads")));
    assertNull(Suggest.nearest("--banana", List.of("--ctx", "--kv")));
    assertNotNull(Suggest.nearest("--CTX", List.of("--ctx")));
    assertNull(Suggest.nearest("x".repeat(5000), List.of("--ctx")));
  }
}
