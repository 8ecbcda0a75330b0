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
 * strata-ref's ggml type tables (the GGUF reader's, gguf_tensors.c, and its kernels', quant.c) are
 * {@link GgmlType}, entry for entry: both include ggml_types.def, which the build writes from the
 * Java table ({@link GgmlTypesDef}), so the two readers size tensors alike and the dense bytes and
 * expert slots the engine plans with are the Java plan's.
 */
class GgmlTypeParityTest {
  @Test
  void theRenderingIsTheJavaTable() {
    Map<Integer, String> rendered = new TreeMap<>();
    Matcher m =
        Pattern.compile("(?m)^STRATA_GGML_TYPE\\((\\d+), \"([a-z0-9_K]+)\", (\\d+), (\\d+)\\)$")
            .matcher(GgmlTypesDef.render());
    while (m.find()) {
      rendered.put(Integer.parseInt(m.group(1)), m.group(2) + " " + m.group(3) + "/" + m.group(4));
    }
    Map<Integer, String> inJava = new TreeMap<>();
    for (GgmlType t : GgmlType.values()) {
      inJava.put(
          t.id(), t.ggmlName() + " " + t.layout().blockSize() + "/" + t.layout().blockBytes());
    }
    assertEquals(inJava, rendered);
    assertEquals("q4_K", GgmlType.Q4_K.ggmlName());
    assertEquals("iq2_xxs", GgmlType.IQ2_XXS.ggmlName());
  }

  @Test
  void bothCTablesIncludeIt() throws Exception {
    for (String file : new String[] {"gguf_tensors.c", "quant.c"}) {
      String c = Files.readString(RepoRoot.path().resolve("engine/native/src/" + file));
      assertTrue(
          c.contains("#include \"ggml_types.def\""), file + " must include the generated list");
      // no hand-kept row of the table beside it: {id, block, bytes} or T(id, "name", ...)
      assertTrue(!c.contains("{2, 32, 18}") && !c.contains("\"q4_0\", 32, 18"), file);
    }
  }
}
