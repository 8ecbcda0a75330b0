package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.model.GgufException;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelCorpus;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28: a tensor name means what its architecture's llama.cpp loader says. The layer pattern
 * comes from the keys first (ArchTable.Layers), then each block's tensors are checked against its
 * kind, in the Java reader and in strata-ref's gguf.c alike: Qwen3-Next and Qwen3.5/3.6 as current
 * and older converters write them (linear-attention layers with attn_qkv or ssm_in) plan 12 and 10
 * KV layers with their recurrent state, and every layer rule's faults get the same one line. The
 * engine's side is its header reader's {@code model:} line: strata-ref does not compute these
 * hybrids and refuses them after reading their layers (exit 3, one line).
 */
class LayerRulesTest {
  @TempDir static Path dir;
  static NativeEngine engine;

  @BeforeAll
  static void load() {
    engine = NativeEngine.load(NativeEngine.defaultLibrary(RepoRoot.path()));
  }

  @AfterAll
  static void close() {
    engine.close();
  }

  /** The engine on a file: its log lines and exit code. */
  private static ModelCorpusTest.Lines check(Path file, int[] rc) {
    ModelCorpusTest.Lines out = new ModelCorpusTest.Lines();
    // 1 MiB: were the model one strata-ref computes, it would refuse on memory (exit 3)
    rc[0] = engine.run(ModelCorpusTest.headerRun(file, 4096), out);
    return out;
  }

  /**
   * The KV layers of the engine's header reader (gguf.c applies the layer rules): its {@code model:
   * arch=… qsa_layers=N} line. These hybrid architectures are planning models strata-ref does not
   * compute: it refuses them after that line, before its kv:/state: accounting (Java's state
   * figures are checked above).
   */
  private static int engineLayers(ModelCorpusTest.Lines out, String name) {
    String model = out.first("model: arch=");
    assertNotNull(model, name + ": " + out.lines);
    return field(model, "qsa_layers");
  }

  /** The engine's one-line refusal of an architecture it does not compute: exit 3. */
  private static void assertComputesNot(ModelCorpusTest.Lines out, Path file, int rc, String name) {
    assertEquals(3, rc, name + ": " + out.lines);
    String line = out.first("model: " + file + ": architecture ");
    assertNotNull(line, name + ": " + out.lines);
    assertTrue(line.contains(" is not one strata-ref computes"), line);
  }

  private static int field(String line, String name) {
    Matcher m = Pattern.compile(" " + name + "=(\\d+)").matcher(line);
    assertTrue(m.find(), line);
    return Integer.parseInt(m.group(1));
  }

  @Test
  void qwen3NextAndQwen36AsLlamaCppWritesThemPlan12And10KvLayersWithTheirState()
      throws IOException {
    int seen = 0;
    for (ModelCorpus.Spec s : ModelCorpus.all()) {
      boolean next = s.name.startsWith("Qwen3-Next-80B-A3B, ");
      boolean q36 = s.name.startsWith("Qwen3.6-35B-A3B shape, ");
      if (!next && !q36) {
        continue;
      }
      seen++;
      Path file = s.write(dir);
      ModelGeometry g = GgufReader.readModel(file).geometry();
      int layers = next ? 12 : 10;
      int blocks = next ? 48 : 40;
      assertEquals(layers, g.qsaLayers().size(), s.name);
      assertEquals(3, g.qsaLayers().getFirst(), s.name);
      assertEquals(blocks - 1, g.qsaLayers().getLast(), s.name);
      assertEquals(blocks - layers, g.recurrentLayers(), s.name + ": Gated DeltaNet layers");
      // (d_conv − 1) × (d_inner + 2 × n_group × d_state) + d_state × d_inner floats
      assertEquals(4L * (3 * (4096 + 2 * 16 * 128) + 128 * 4096), g.stateBytesPerLayer(), s.name);
      int[] rc = new int[1];
      ModelCorpusTest.Lines out = check(file, rc);
      assertEquals(layers, engineLayers(out, s.name), s.name + ": the engine's KV layers");
      assertComputesNot(out, file, rc[0], s.name);
    }
    assertEquals(4, seen, "both converter generations of both models are in the corpus");
  }

  @Test
  void everyLayerRuleTakesOrRefusesAHeaderAlikeInJavaAndInTheEngine() throws IOException {
    List<ModelCorpus.Spec> cases = ModelCorpus.layerCases();
    assertTrue(cases.size() >= 9, "one case per rule and fault");
    for (ModelCorpus.Spec s : cases) {
      Path file = s.write(dir);
      int[] rc = new int[1];
      if (s.refusal == null) {
        ModelGeometry g = GgufReader.readModel(file).geometry();
        assertEquals(List.of(3, 7), g.qsaLayers(), s.name);
        assertEquals(6, g.recurrentLayers(), s.name);
        ModelCorpusTest.Lines out = check(file, rc);
        assertEquals(2, engineLayers(out, s.name), s.name);
        assertComputesNot(out, file, rc[0], s.name);
        continue;
      }
      GgufException e = assertThrows(GgufException.class, () -> GgufReader.readModel(file), s.name);
      assertEquals(file + ": " + s.refusal, e.getMessage(), s.name);
      ModelCorpusTest.Lines out = check(file, rc);
      assertEquals(2, rc[0], s.name + ": " + out.lines);
      assertTrue(
          out.lines.stream().anyMatch(l -> l.endsWith(file + ": " + s.refusal)),
          s.name + ": the engine's line is Java's: " + out.lines);
    }
  }
}
