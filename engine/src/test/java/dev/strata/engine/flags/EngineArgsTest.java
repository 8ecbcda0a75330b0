package dev.strata.engine.flags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.strata.engine.Backend;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Adding an engine flag is one row in {@link EngineFlags} and one accessor in {@link EngineArgs}
 * (docs/FLAGS.md, "Adding a flag"): these tests walk the table, so a new row is covered without
 * being named here, and fail until its accessor exists and returns the row's value.
 */
class EngineArgsTest {
  private static final String M = "/models/m-00001-of-00004.gguf";

  /** {@code --mem-budget-mb} → {@code memBudgetMb}. */
  static String accessorName(String flag) {
    StringBuilder b = new StringBuilder();
    boolean up = false;
    for (char c : flag.substring(2).toCharArray()) {
      if (c == '-') {
        up = true;
      } else {
        b.append(up ? Character.toUpperCase(c) : c);
        up = false;
      }
    }
    return b.toString();
  }

  /**
   * What a workload flag's extreme value needs to be a config strata-ref takes (its pool rule,
   * {@link PoolRule}): the largest context and the other workload flag at its least; else nothing.
   */
  static List<String> room(String flag) {
    return switch (flag) {
      case EngineFlags.PROMPT_TOKENS ->
          List.of(EngineFlags.CTX, Long.toString(EngineFlags.MAX_CTX), EngineFlags.N_PREDICT, "0");
      case EngineFlags.N_PREDICT ->
          List.of(
              EngineFlags.CTX, Long.toString(EngineFlags.MAX_CTX), EngineFlags.PROMPT_TOKENS, "1");
      default -> List.of();
    };
  }

  /** A value of the row that is not its default (so a default would not pass for it). */
  private static String nonDefault(FlagSpec f) {
    return switch (f.kind()) {
      case ValueKind.Choice c ->
          c.values().stream().filter(v -> !v.equals(f.defaultValue())).reduce((a, b) -> b).get();
      case ValueKind.IntRange r ->
          Long.toString(Long.toString(r.max()).equals(f.defaultValue()) ? r.min() : r.max());
      case ValueKind.Switch _ -> "";
      case ValueKind.PathValue _ -> "/another path/é.gguf";
    };
  }

  /** An accessor's typed value as argv text: how the engines would read it back. */
  private static String asText(Object typed) {
    return switch (typed) {
      case null -> null;
      case Boolean on -> on ? "" : null;
      case ExpertsMode e -> e.id();
      case KvFormat k -> k.flagName();
      case EngineArgs.Fault f -> f.id();
      default -> typed.toString();
    };
  }

  private static Method accessor(FlagSpec f) {
    String name = accessorName(f.name());
    try {
      Method m = EngineArgs.class.getMethod(name);
      assertTrue(Modifier.isPublic(m.getModifiers()), name);
      return m;
    } catch (NoSuchMethodException e) {
      fail(
          "the flag "
              + f.name()
              + " has a row in EngineFlags but no accessor EngineArgs."
              + name
              + "() (docs/FLAGS.md, Adding a flag)");
      return null;
    }
  }

  @Test
  void everyRowHasItsAccessorAndItsValueReachesIt() throws ReflectiveOperationException {
    Set<String> accessors = new HashSet<>();
    for (FlagSpec f : EngineFlags.flags()) {
      Method m = accessor(f);
      accessors.add(m.getName());
      Backend b = f.backends().iterator().next();
      String v = nonDefault(f);
      List<String> argv =
          new ArrayList<>(
              f.required()
                  ? List.of(f.name(), v)
                  : f.isSwitch()
                      ? List.of("--model", M, f.name())
                      : List.of("--model", M, f.name(), v));
      argv.addAll(room(f.name()));
      EngineArgs given = EngineFlags.parse(argv, b);
      assertEquals(v, asText(m.invoke(given)), f.name() + " given as '" + v + "'");
      if (!f.required()) {
        EngineArgs absent = EngineFlags.parse(List.of("--model", M), b);
        assertEquals(
            f.defaultValue(), asText(m.invoke(absent)), f.name() + " absent: the row's default");
        assertNotEquals(absent, given, f.name() + ": the value counts for equality");
      }
    }
    // and no accessor without a row (a flag removed from the table leaves none behind)
    for (Method m : EngineArgs.class.getDeclaredMethods()) {
      if (Modifier.isPublic(m.getModifiers())
          && !Modifier.isStatic(m.getModifiers())
          && m.getParameterCount() == 0
          && !List.of("toArgv", "toString", "hashCode").contains(m.getName())) {
        assertTrue(accessors.contains(m.getName()), m.getName() + "() has no row in EngineFlags");
      }
    }
  }

  @ParameterizedTest
  @CsvSource({"--mem-budget-mb, memBudgetMb", "--kv-resident, kvResident", "--ctx, ctx"})
  void accessorNamesFollowTheFlag(String flag, String accessor) {
    assertEquals(accessor, accessorName(flag));
  }

  @Test
  void anExplicitDefaultEqualsAnAbsentFlag() {
    EngineArgs explicit = EngineFlags.parse(List.of("--model", M, "--ctx", "4096"), Backend.METAL);
    EngineArgs absent = EngineFlags.parse(List.of("--model", M), Backend.METAL);
    assertEquals(absent, explicit);
    assertEquals(absent.hashCode(), explicit.hashCode());
    assertEquals(List.of("--model", M), explicit.toArgv());
  }

  // ------------------------------------------------------------- parsed once, by the config

  private static final HostFacts HOST =
      new HostFacts("linux", "test cpu", 4, 4, 0, 8L << 30, 0, false, false, "Debian 12", 0);

  private static EngineConfig config(String backend, List<String> args) {
    return new EngineConfig(
        EngineConfig.SCHEMA,
        new EngineConfig.Engine(backend, "/lib/libstrata-ref.so", null),
        new EngineConfig.Model(List.of(M)),
        HOST,
        args,
        Map.of());
  }

  @Test
  void aConfigCarriesItsTypedArgsThroughWriteAndRead() {
    EngineConfig c =
        config("cpu-reference", List.of("--model", M, "--ctx", "8192", "--kv", "q4_0"));
    assertNotNull(c.engineArgs());
    assertNull(c.parsed().problem());
    EngineConfig read = ConfigCodec.read(ConfigCodec.write(c), "test.yaml");
    assertEquals(c, read);
    EngineArgs a = read.engineArgs();
    assertEquals(8192, a.ctx());
    assertEquals(KvFormat.Q4_0, a.kv());
    assertEquals(Path.of(M), a.model());
    assertSame(a, read.engineArgs(), "parsed once: the same view every time");
  }

  @Test
  void argsTheTableRefusesHaveNoTypedViewAndTheCodecSaysWhy() {
    // --kv-resident is the pc engine's only
    EngineConfig c = config("cpu-reference", List.of("--model", M, "--kv-resident"));
    assertNull(c.engineArgs());
    assertEquals(2, c.parsed().argIndex());
    var e =
        org.junit.jupiter.api.Assertions.assertThrows(
            dev.strata.engine.config.ConfigException.class, () -> ConfigCodec.write(c));
    assertEquals(
        "(config): args: --kv-resident is not accepted by the cpu-reference backend (only by pc)",
        e.getMessage());
    assertNull(config("no-such-backend", List.of("--model", M)).engineArgs());
    assertNull(config("no-such-backend", List.of("--model", M)).parsed().problem());
  }

  @Test
  void everyFlagOfTheTableRoundTripsThroughAConfigFile() {
    List<String> seen = new ArrayList<>();
    for (FlagSpec f : EngineFlags.flags()) {
      if (f.required() || !f.acceptedBy(Backend.CPU_REFERENCE)) {
        continue;
      }
      List<String> args = new ArrayList<>(List.of("--model", M, f.name()));
      String v = nonDefault(f);
      if (!f.isSwitch()) {
        args.add(v);
      }
      args.addAll(room(f.name()));
      EngineConfig read =
          ConfigCodec.read(ConfigCodec.write(config("cpu-reference", args)), "test.yaml");
      assertEquals(v, read.engineArgs().valueOf(f.name()), f.name());
      seen.add(f.name());
    }
    assertTrue(seen.contains(EngineFlags.CTX), seen.toString());
  }
}
