package dev.strata.engine.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** strata-setup's own files follow the engine config's rule: plain values, errors with a line. */
class StrictYamlTest {
  private static final Set<String> KEYS = Set.of("model", "ctx", "kv", "args");

  private static String refused(String text) {
    StrataException e =
        assertThrows(StrataException.class, () -> StrictYaml.parse(text, "a.yaml", KEYS));
    assertEquals(ExitCodes.USAGE, e.exitCode());
    return e.getMessage();
  }

  @Test
  void scalarAnchorsAndAliasesAreRefusedLikeInAConfig() {
    assertEquals(
        "a.yaml:2: anchor &e is not allowed: this file holds plain values only (no anchors or"
            + " aliases; write the value out)",
        refused("model: m.gguf\nctx: &e 4096\nkv: *e\n"));
    assertEquals(
        "a.yaml:2: alias *e is not allowed: this file holds plain values only (no anchors or"
            + " aliases; write the value out)",
        refused("model: m.gguf\nkv: *e\n"));
  }

  @Test
  void tagsOtherThanTheScalarOnesAreRefusedBeforeComposing() {
    assertEquals(
        "a.yaml:1: tag !!java.io.File is not allowed: this file holds plain values only (the only"
            + " tags are !!str, !!int, !!float, !!bool, !!null)",
        refused("model: !!java.io.File m.gguf\n"));
    assertEquals("4096", StrictYaml.parse("ctx: !!str 4096\n", "a.yaml", KEYS).string("ctx"));
  }

  @Test
  void tooDeepNestingNamesItsLine() {
    assertEquals(
        "a.yaml:3: nesting deeper than 8 levels; a strata-setup file needs 2",
        refused("model: m.gguf\nctx: 1\nargs: " + "[".repeat(12) + "]".repeat(12) + "\n"));
  }

  @Test
  void aBadIndentGetsAHint() {
    assertEquals(
        "a.yaml:2: YAML syntax error: mapping values are not allowed here; check the indentation at"
            + " line 2: YAML uses spaces, two per level",
        refused("model: m.gguf\n ctx: 1\n"));
    // a colon inside a value is not an indent
    assertEquals(
        "a.yaml:1: YAML syntax error: mapping values are not allowed here",
        refused("model: m.gguf: x\n"));
  }
}
