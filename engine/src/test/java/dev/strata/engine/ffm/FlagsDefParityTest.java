package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.flags.FlagSpec;
import dev.strata.engine.flags.ValueKind;
import dev.strata.engine.model.TinyModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * strata-ref parses its flags from {@code engine/native/src/flags.def}, generated from {@link
 * EngineFlags} (FlagFilesTest pins that file against the table). This checks the compiled engine
 * obeys the Java table: every bound and every choice, the backends, and a flag the table lacks.
 */
class FlagsDefParityTest {
  @TempDir static Path dir;
  static NativeEngine engine;
  static Path model;

  @BeforeAll
  static void load() throws Exception {
    engine = NativeEngine.load(NativeEngine.defaultLibrary(NativeEngineTest.ROOT));
    // a model strata-ref computes (the seed geometry, qwen3next, it refuses)
    model = TinyModel.moe().write(dir, "m", 1, 3).getFirst();
  }

  @AfterAll
  static void close() {
    engine.close();
  }

  private static NativeEngineTest.Lines run(String... args) {
    return RefCalls.call(engine, false, model, args);
  }

  @Test
  void strataRefIncludesTheGeneratedList() throws Exception {
    String flags = Files.readString(NativeEngineTest.ROOT.resolve("engine/native/src/flags.c"));
    assertTrue(flags.contains("#include \"flags.def\""), "flags.c must include the generated list");
  }

  @Test
  void boundsChoicesAndBackendsMatchTheJavaTable() {
    int checked = 0;
    for (FlagSpec f : EngineFlags.flags()) {
      if (f.name().equals(EngineFlags.MODEL)) {
        continue;
      }
      if (!f.acceptedBy(Backend.CPU_REFERENCE)) {
        List<String> args = f.isSwitch() ? List.of(f.name()) : List.of(f.name(), "1");
        NativeEngineTest.Lines l = run(args.toArray(String[]::new));
        assertTrue(l.has("rc=" + ExitCodes.USAGE), f.name() + " " + l.lines);
        assertTrue(
            l.startingWith("flags: " + f.name() + " is not a flag of strata-ref").length() > 10,
            l.lines::toString);
        checked++;
        continue;
      }
      List<String> bad = new ArrayList<>();
      if (f.kind() instanceof ValueKind.IntRange r) {
        bad.add(Long.toString(r.max() + 1));
        if (r.min() > 0) {
          bad.add(Long.toString(r.min() - 1));
        }
      } else if (f.kind() instanceof ValueKind.Choice c) {
        bad.add(c.values().get(0).toUpperCase(java.util.Locale.ROOT) + "x");
      }
      for (String v : bad) {
        NativeEngineTest.Lines l = run(f.name(), v);
        assertTrue(l.has("rc=" + ExitCodes.USAGE), f.name() + " " + v + " " + l.lines);
        assertTrue(
            l.startingWith("flags: " + f.name() + ": bad value '" + v + "'").length() > 10,
            l.lines::toString);
        checked++;
      }
    }
    assertTrue(checked >= 10, "checked " + checked);
    NativeEngineTest.Lines unknown = run("--no-such-flag");
    assertTrue(unknown.has("rc=" + ExitCodes.USAGE));
  }

  @Test
  void everyCpuReferenceFlagIsAcceptedAtItsLimits() {
    NativeEngineTest.Lines l =
        run(
            "--ctx",
            "256",
            "--experts",
            "resident",
            "--threads",
            "1024",
            "--mem-budget-mb",
            Long.toString(EngineFlags.MAX_MEM_BUDGET_MB),
            "--spec",
            "16",
            "--suffix-draft",
            "64",
            "--kv",
            "q4_0",
            "--prompt-tokens",
            "1",
            "--n-predict",
            "1");
    assertTrue(l.has("rc=0"), l.lines::toString);
    assertEquals(
        "kv: format=q4_0 cell_bytes=576 layers=2 cells=384 bytes=442368",
        l.startingWith("kv: format="));
  }
}
