package dev.strata.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * The YAML reader at its edges: positions a user is pointed to (CRLF and lone CR line breaks, a
 * second document), tabs and byte order marks, the safe SnakeYAML options as a backstop, and the
 * indentation hint.
 */
class YamlEdgesTest {
  private static final YamlReader.Limits SMALL =
      new YamlReader.Limits(64, 2, 80, "a test file", "a test file needs 2");

  private static YamlReader.Node parse(String text, YamlReader.Limits limits) {
    return YamlReader.parse(
        text,
        limits,
        (line, column, detail) -> new ConfigException("t.yaml", line, column, detail));
  }

  private static ConfigException refused(String text, YamlReader.Limits limits) {
    return assertThrows(ConfigException.class, () -> parse(text, limits));
  }

  private static ConfigException refused(String text) {
    return refused(text, ConfigReader.LIMITS);
  }

  @Test
  void theSnakeYamlBackstopsAreOn() {
    LoaderOptions o = YamlReader.loaderOptions(ConfigReader.LIMITS);
    assertFalse(o.isAllowDuplicateKeys());
    assertEquals(0, o.getMaxAliasesForCollections());
    assertFalse(o.getAllowRecursiveKeys());
    assertEquals(ConfigReader.MAX_BYTES, o.getCodePointLimit());
    assertFalse(
        o.getTagInspector().isGlobalTagAllowed(new Tag("tag:yaml.org,2002:java.lang.Object")));
  }

  @Test
  void aDocumentOverTheCodePointLimitIsOneLineWithItsPlace() {
    // the config's own size check comes first (ConfigLimitsTest); a holder with a smaller limit
    // gets SnakeYAML's limit as a syntax error at the last event read
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      sb.append("k").append(i).append(": 1\n");
    }
    String text = sb.toString();
    ConfigException e = refused(text, SMALL);
    assertTrue(e.detail().startsWith("YAML syntax error: "), e.getMessage());
    assertTrue(e.detail().contains("64"), e.getMessage());
    assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    assertTrue(e.where().line() >= 1 && e.where().column() >= 1, e.getMessage());
  }

  @Test
  void aSecondDocumentIsNamedWhereItStarts() {
    // the place is the second document's first node, the line after its '---'
    ConfigException e = refused("a: 1\n---\nb: 2\n");
    assertEquals("t.yaml", e.where().source());
    assertEquals(3, e.where().line());
    assertEquals(1, e.where().column());
    assertEquals(
        "a second YAML document starts here; a config is one document (remove the '---')",
        e.detail());
    assertEquals("t.yaml:3:1: " + e.detail(), e.getMessage());
  }

  @Test
  void crlfAndLoneCrCountAsOneLineBreak() {
    ConfigException crlf = refused("a: 1\r\nb:\r\n\tc: 2\r\n");
    assertEquals(3, crlf.where().line(), crlf.getMessage());
    assertEquals(1, crlf.where().column(), crlf.getMessage());
    assertTrue(crlf.detail().startsWith("a tab indents this line"), crlf.getMessage());
    ConfigException cr = refused("a: 1\rb:\r\tc: 2\r");
    assertEquals(3, cr.where().line(), cr.getMessage());
    ConfigException nel = refused("a: 1\nb:\u2028\tc: 2\n");
    assertEquals(3, nel.where().line(), nel.getMessage());
  }

  @Test
  void aTabIsRefusedInIndentationOnlyAndWhereItIs() {
    ConfigException e = refused("a:\n  \tb: 1\n");
    assertEquals(2, e.where().line());
    assertEquals(3, e.where().column());
    var map =
        assertInstanceOf(YamlReader.MapNode.class, parse("a: \"x\ty\"\n", ConfigReader.LIMITS));
    var value = assertInstanceOf(YamlReader.Scalar.class, map.entries().get("a").value());
    assertEquals("x\ty", value.text());
  }

  @Test
  void aByteOrderMarkIsAllowedOnlyFirst() {
    assertInstanceOf(YamlReader.MapNode.class, parse("\uFEFFa: 1\n", ConfigReader.LIMITS));
    ConfigException e = refused("a: 1\n\uFEFFb: 2\n");
    assertEquals(2, e.where().line());
    assertEquals(1, e.where().column());
    assertTrue(e.detail().startsWith("character U+FEFF is not allowed here"), e.getMessage());
  }

  @Test
  void siblingCollectionsDoNotAddUpToTheDepthLimit() {
    // depth counts open collections: a closed one gives its level back
    assertInstanceOf(
        YamlReader.MapNode.class, parse("a: {x: 1}\nb: [1]\nc: {y: 2}\nd: [2]\n", SMALL));
    ConfigException e = refused("a: {x: [1]}\n", SMALL);
    assertTrue(e.detail().startsWith("nesting deeper than 2 levels"), e.getMessage());
  }

  @Test
  void utf8TextIsDecodedWhole() {
    YamlReader.Errors errors =
        (line, column, detail) -> new ConfigException("t", line, column, detail);
    assertEquals("", YamlReader.utf8(new byte[0], errors));
    assertEquals("aé", YamlReader.utf8("aé".getBytes(StandardCharsets.UTF_8), errors));
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> YamlReader.utf8(new byte[] {'a', '\n', 'b', '\n', (byte) 0xC3}, errors));
    assertEquals(3, e.where().line());
    assertEquals("not UTF-8 text (a bad byte at offset 4); save it as UTF-8", e.detail());
  }

  @Test
  void theIndentationHintNamesOnlyIndentationProblems() {
    String hint2 = "; check the indentation at line 2: YAML uses spaces, two per level";
    String mapping = "mapping values are not allowed here";
    String text = "a: b: c\nd\ne: f: g\n";
    // a colon inside a value on the same line is not an indent problem; a lone word above is
    assertEquals("", YamlRules.indentHint(mapping, text, 1, 6));
    assertEquals(hint2, YamlRules.indentHint(mapping, text, 2, 2));
    assertEquals("", YamlRules.indentHint(mapping, text, 3, 6));
    // the first line of a file that starts with a blank line is empty
    assertEquals(
        "; check the indentation at line 1: YAML uses spaces, two per level",
        YamlRules.indentHint(mapping, "\na: b: c\n", 1, 5));
    assertEquals(hint2, YamlRules.indentHint(mapping, "x\nab\n", 2, 2));
    assertEquals("", YamlRules.indentHint(mapping, "\na: b: c", 2, 6));
    assertEquals(hint2, YamlRules.indentHint(mapping, "x", 2, 2)); // past the end: no text
    for (String p :
        new String[] {
          "expected <block end>, but found '<block mapping start>'",
          "could not find expected ':'",
          "did not find expected key",
          "did not find expected '-' indicator"
        }) {
      assertEquals(hint2, YamlRules.indentHint(p, text, 2, 1), p);
    }
    assertEquals("", YamlRules.indentHint("expected <block end>, but found '?'", text, 2, 1));
    assertEquals("", YamlRules.indentHint("found undefined tag handle", text, 2, 1));
    assertEquals("", YamlRules.indentHint(null, text, 2, 1));
    assertEquals("", YamlRules.indentHint("did not find expected key", text, 0, 1));
  }

  @Test
  void aFileMayEndInALoneCarriageReturn() {
    assertInstanceOf(YamlReader.MapNode.class, parse("a: 1\r", ConfigReader.LIMITS));
  }

  @Test
  void aColonInsideAValueGetsNoIndentationHint() {
    ConfigException e = refused("a: b: c\n");
    assertTrue(e.detail().startsWith("YAML syntax error: mapping values"), e.getMessage());
    assertFalse(e.detail().contains("indentation"), e.getMessage());
    ConfigException k = refused("a:\n  b: 1\n c: 2\n");
    assertTrue(k.detail().contains("check the indentation at line"), k.getMessage());
  }

  @Test
  void onlyTheCoreScalarTagsAreAllowed() {
    for (String ok : new String[] {"a: !!str 1\n", "a: !<tag:yaml.org,2002:str> 1\n"}) {
      var map = assertInstanceOf(YamlReader.MapNode.class, parse(ok, ConfigReader.LIMITS));
      var value = assertInstanceOf(YamlReader.Scalar.class, map.entries().get("a").value());
      assertEquals("1", value.text(), ok);
    }
    for (String bad :
        new String[] {
          "a: !!python/object x\n",
          "a: !local x\n",
          "a: !<tag:yaml.org,2002:java.lang.Object> x\n",
          "a: !<tag:example.com,2000:str> x\n"
        }) {
      ConfigException e = refused(bad);
      assertTrue(e.detail().startsWith("tag "), bad + " -> " + e.getMessage());
      assertTrue(e.detail().contains("(the only tags are !!str"), e.getMessage());
    }
  }
}
