package dev.strata.engine.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.Backend;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.GgufException;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelCorpus;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.plan.KvPools;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanRequest;
import dev.strata.testsupport.RepoRoot;
import dev.strata.testsupport.SharedData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The model corpus (docs/MODELS.md): every supported header gets KV and state bytes equal to the
 * hand-computed table in docs/MODELS.md, in the Java plan and in strata-ref's own accounting (its
 * {@code kv:} and {@code state:} lines); every refused one gets one line naming the architecture or
 * feature, from both, and never "download again".
 */
class ModelCorpusTest {
  static final long CTX = 32_768;
  static final Path ROOT = RepoRoot.path();

  @TempDir static Path dir;
  static NativeEngine engine;

  /** A row of the docs table: name → [int8, q4_0, state] ("refused" as -1). */
  static final Map<String, long[]> FIGURES = new HashMap<>();

  /** A row of the refused table: name → the words the one-line message must hold. */
  static final Map<String, String> REFUSED = new HashMap<>();

  private static final Pattern ROW =
      Pattern.compile("^\\| ([^|]+?) \\| ([^|]+?) \\| ([^|]+?) \\| ([^|]+?) \\|$");

  @BeforeAll
  static void load() throws IOException {
    engine = NativeEngine.load(NativeEngine.defaultLibrary(ROOT));
    String md = Files.readString(RepoRoot.path().resolve("docs/MODELS.md"));
    String figures = section(md, "## The corpus: figures at --ctx 32768");
    for (String line : figures.lines().toList()) {
      Matcher m = ROW.matcher(line);
      if (m.matches() && !m.group(2).startsWith("KV") && !m.group(2).startsWith("-")) {
        FIGURES.put(m.group(1), new long[] {num(m.group(2)), num(m.group(3)), num(m.group(4))});
      }
    }
    String refused = section(md, "## The corpus: refused");
    for (String line : refused.lines().toList()) {
      String[] cells = line.split("\\|");
      if (cells.length >= 4
          && line.startsWith("| ")
          && !line.startsWith("| model")
          && !line.startsWith("|-")) {
        REFUSED.put(cells[1].strip(), cells[3].strip().replace("`", ""));
      }
    }
  }

  @AfterAll
  static void close() {
    engine.close();
  }

  private static String section(String md, String heading) {
    int at = md.indexOf(heading);
    assertTrue(at >= 0, "docs/MODELS.md lacks " + heading);
    int end = md.indexOf("\n## ", at + heading.length());
    return md.substring(at, end < 0 ? md.length() : end);
  }

  private static long num(String s) {
    return s.strip().equals("refused") ? -1 : Long.parseLong(s.strip().replace(",", ""));
  }

  static final class Lines implements LogSink {
    final List<String> lines = new ArrayList<>();

    @Override
    public synchronized void line(LogLevel level, String line) {
      lines.add(line);
    }

    synchronized String first(String prefix) {
      return lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
    }
  }

  private static long bytesOf(String line) {
    Matcher m = Pattern.compile(" bytes=(\\d+)").matcher(line);
    assertTrue(m.find(), line);
    return Long.parseLong(m.group(1));
  }

  @Test
  void theCorpusIsBigEnoughAndEveryModelIsInTheDocs() {
    assertTrue(ModelCorpus.all().size() >= 30, "at least 30 headers");
    for (ModelCorpus.Spec s : ModelCorpus.all()) {
      assertTrue(
          FIGURES.containsKey(s.name) ^ REFUSED.containsKey(s.name),
          s.name + " is in exactly one table of docs/MODELS.md");
      assertFalse(s.source.isBlank(), s.name + " names its source");
    }
  }

  @Test
  void everySupportedModelPlansTheTablesBytesInJavaAndInTheEngine() throws IOException {
    HostFacts host =
        new HostFacts("linux", "x86_64", 8, 0, 0, 1L << 50, 0, false, false, "test", 0);
    for (ModelCorpus.Spec s : ModelCorpus.all()) {
      long[] want = FIGURES.get(s.name);
      if (want == null) {
        continue;
      }
      Path file = s.write(dir);
      ModelGeometry g = GgufReader.readModel(file).geometry();
      long spec = s.name.contains("--spec 2") ? 2 : 0;
      assertEquals(want[2], g.stateBytes(), s.name + ": state bytes (Java)");
      KvFormat[] formats = {KvFormat.INT8, KvFormat.Q4_0};
      for (int i = 0; i < 2; i++) {
        MemoryPlan plan =
            MemoryPlan.compute(
                PlanRequest.of(host, g, Backend.CPU_REFERENCE)
                    .withContext(CTX)
                    .withExperts(ExpertsMode.STREAM)
                    .withPools(formats[i])
                    .withSpec(spec));
        Lines out = new Lines();
        int rc =
            engine.run(
                headerRun(file, CTX, "--kv", formats[i].flagName(), "--spec", Long.toString(spec)),
                out);
        String what = s.name + " " + formats[i].flagName();
        // strata-ref computes qwen3, qwen3moe, qwen2 and llama from complete files: a corpus header
        // of another architecture, one without the keys or tensors its loader needs, or one whose
        // tokenizer it cannot build (the corpus writes no BPE merges) is refused with one line
        // naming the file before any accounting; the Java figures are checked all the same
        String cannot = out.first("model: " + file + ": ");
        if (cannot != null) {
          assertTrue(rc == 2 || rc == 3, what + ": " + out.lines);
          assertTrue(
              cannot.contains("strata-ref")
                  || cannot.contains("tensor ")
                  || cannot.contains(" is missing (the file is not a complete ")
                  || cannot.contains(": tokenizer.ggml."),
              what + ": " + cannot);
          if (want[i] < 0) {
            assertNotNull(plan.refusal(), what + ": the Java plan refuses");
            assertTrue(plan.refusal().startsWith("kv: "), plan.refusal());
          } else {
            assertEquals(want[i], plan.kv().bytes(), what + ": KV (plan)");
            assertEquals(want[2], plan.stateBytes(), what + ": state (plan)");
          }
          continue;
        }
        if (want[i] < 0) {
          assertNotNull(plan.refusal(), what + ": the Java plan refuses");
          assertTrue(plan.refusal().startsWith("kv: "), plan.refusal());
          assertTrue(plan.refusal().contains(g.architecture()), plan.refusal());
          assertFalse(plan.refusal().contains("drop --kv"), plan.refusal());
          assertEquals(3, rc, what + ": the engine refuses: " + out.lines);
          assertNotNull(out.first("kv: --kv " + formats[i].flagName()), what + ": " + out.lines);
          continue;
        }
        assertEquals(want[i], KvPools.of(formats[i], g, CTX, spec).bytes(), what + ": KV (Java)");
        assertEquals(want[i], plan.kv().bytes(), what + ": KV (plan)");
        assertEquals(want[2], plan.stateBytes(), what + ": state (plan)");
        assertEquals(3, rc, what + ": " + out.lines);
        assertNotNull(
            out.first("stream: the expert arena"), what + ": refused on memory only: " + out.lines);
        assertEquals(want[i], bytesOf(out.first("kv: format=")), what + ": KV (engine)");
        String state = out.first("state: ");
        assertEquals(want[2], state == null ? 0 : bytesOf(state), what + ": state (engine)");
      }
    }
  }

  @Test
  void everyRefusedModelGetsOneLineNamingTheFeatureFromBothReaders() throws IOException {
    for (ModelCorpus.Spec s : ModelCorpus.all()) {
      String words = REFUSED.get(s.name);
      if (words == null) {
        continue;
      }
      Path file = s.write(dir);
      GgufException e = assertThrows(GgufException.class, () -> GgufReader.readModel(file), s.name);
      assertEquals(1, e.getMessage().lines().count(), e.getMessage());
      assertTrue(e.getMessage().contains(words), s.name + ": " + e.getMessage());
      assertFalse(e.getMessage().contains("download"), e.getMessage());
      Lines out = new Lines();
      int rc = engine.run(List.of("--model", file.toString(), "--ctx", "4096"), out);
      assertEquals(2, rc, s.name + ": " + out.lines);
      assertTrue(out.lines.stream().anyMatch(l -> l.contains(words)), s.name + ": " + out.lines);
    }
  }

  @Test
  void realVocabularyFilesAreRefusedAsTokenizerFilesNamingTheFile() {
    Path data = SharedData.resolve("gguf").filter(Files::isDirectory).orElse(null);
    Assumptions.assumeTrue(data != null, SharedData.WHY_NOT);
    for (String name : List.of("ggml-vocab-llama.gguf", "ggml-vocab-gpt-neox.gguf")) {
      Path file = data.resolve(name);
      GgufException e = assertThrows(GgufException.class, () -> GgufReader.readModel(file));
      assertEquals(
          file
              + ": holds no tensors: a tokenizer file, not model weights; pass the model's .gguf"
              + " file",
          e.getMessage());
      Lines out = new Lines();
      assertEquals(2, engine.run(List.of("--model", file.toString()), out));
      assertTrue(
          out.lines.stream()
              .anyMatch(l -> l.contains(file + ": holds no tensors: a tokenizer file")),
          out.lines.toString());
    }
  }

  /**
   * strata-ref's argv that reads {@code file}'s header and stops there: one prompt token, no
   * decode, one thread and a 1 MiB budget, so the engine logs its kv:/state: accounting, then
   * refuses on memory (exit 3) before it allocates anything, whatever this machine has.
   *
   * @param more further flags ({@code --kv}, {@code --spec})
   */
  static List<String> headerRun(Path file, long ctx, String... more) {
    List<String> argv =
        new java.util.ArrayList<>(
            List.of(
                "--model",
                file.toString(),
                "--ctx",
                Long.toString(ctx),
                "--prompt-tokens",
                "1",
                "--n-predict",
                "0",
                "--threads",
                "1",
                "--mem-budget-mb",
                "1"));
    argv.addAll(List.of(more));
    return argv;
  }
}
