package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.testsupport.RepoRoot;
import java.nio.file.Files;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * strata-ref's ggml type table (engine/native/src/gguf.c, GGML_TYPES: id, values per block, bytes
 * per block) is {@link GgmlType}, entry for entry: the two readers size tensors alike, so the dense
 * bytes and expert slots the engine plans with are the Java plan's.
 */
class GgmlTypeParityTest {
  @Test
  void theCTableIsTheJavaTable() throws Exception {
    String c = Files.readString(RepoRoot.path().resolve("engine/native/src/gguf.c"));
    int start = c.indexOf("GGML_TYPES[] = {");
    assertTrue(start >= 0, "gguf.c has GGML_TYPES");
    String table = c.substring(start, c.indexOf("};", start));
    Map<Integer, String> inC = new TreeMap<>();
    Matcher m = Pattern.compile("\\{(\\d+), (\\d+), (\\d+)\\}").matcher(table);
    while (m.find()) {
      inC.put(Integer.parseInt(m.group(1)), m.group(2) + "/" + m.group(3));
    }
    Map<Integer, String> inJava = new TreeMap<>();
    for (GgmlType t : GgmlType.values()) {
      inJava.put(t.id(), t.blockSize() + "/" + t.blockBytes());
    }
    assertEquals(inJava, inC);
  }
}
