package dev.strata.launcher.quality;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strata.engine.ffm.NativeEngine;
import dev.strata.testsupport.RepoRoot;
import dev.strata.testsupport.SharedData;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * strata-quality through the real strata-ref on the shared tiny-qwen3-q8_0 (no mocks): the fp16
 * reference against itself, int8 and q4_0 against it, the prompt path against the decode path,
 * _logits_ files written and read back, llama.cpp's own file (bench/llamacpp/logits.mjs) as the
 * base, and bad input.
 */
class QualityRunTest {
  static final Path ROOT = RepoRoot.path();
  static Path model;
  static Path tokens;
  @TempDir Path tmp;

  @BeforeAll
  static void find() {
    model = SharedData.resolve("models/tiny-qwen3-q8_0.gguf").orElse(null);
    tokens = SharedData.resolve("models/val.u16").orElse(null);
    assumeTrue(model != null && tokens != null && Files.isRegularFile(model), SharedData.WHY_NOT);
  }

  record Run(int rc, String out, String err) {
    double figure(String format, String name) {
      Matcher m =
          Pattern.compile("\"" + format + "\":\\{[^}]*\"" + name + "\":([-0-9.eE+]+)").matcher(out);
      assertTrue(m.find(), "no " + format + "." + name + " in " + out + "\n" + err);
      return Double.parseDouble(m.group(1));
    }
  }

  static Run quality(String... args) {
    List<String> a = new ArrayList<>(Arrays.asList(args));
    a.addAll(
        List.of("--engine-lib", NativeEngine.defaultLibrary(ROOT).toString(), "--threads", "2"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      rc = QualityMain.run(a.toArray(String[]::new), o, e);
    }
    return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** The shared model over val.u16's first 2 chunks of 128 tokens (logits.mjs takes them too). */
  static List<String> twoChunkArgs() {
    return List.of(
        "--model",
        model.toString(),
        "--tokens",
        tokens.toString(),
        "--ctx",
        "128",
        "--chunks",
        "2");
  }

  /** strata-quality over {@link #twoChunkArgs}, then {@code more}. */
  static Run twoChunks(String... more) {
    List<String> a = new ArrayList<>(twoChunkArgs());
    a.addAll(Arrays.asList(more));
    return quality(a.toArray(String[]::new));
  }

  @Test
  void referenceAgainstItselfIsExactAndQuantizedFormatsCost() throws Exception {
    Path dir = tmp.resolve("out");
    Run r = twoChunks("--json", "--out", dir.toString());
    assertEquals(0, r.rc(), r.err());
    assertEquals(0.0, r.figure("fp16", "mean_kl"));
    assertEquals(0.0, r.figure("fp16", "max_kl"));
    assertEquals(1.0, r.figure("fp16", "same_top"));
    assertEquals(2048, r.figure("fp16", "bytes_per_cell_per_layer"));
    assertEquals(1056, r.figure("int8", "bytes_per_cell_per_layer"));
    assertEquals(576, r.figure("q4_0", "bytes_per_cell_per_layer"));
    assertEquals(2 * 63, r.figure("q4_0", "positions"));
    double int8 = r.figure("int8", "mean_kl");
    double q4 = r.figure("q4_0", "mean_kl");
    assertTrue(int8 > 0 && q4 > 0 && q4 > int8, "int8 " + int8 + ", q4_0 " + q4);
    assertTrue(r.figure("q4_0", "same_top") < 1.0 || q4 > 0);
    // strata-ref's prompt and decode paths both read the pools: the same logits
    assertEquals(0.0, r.figure("prompt_vs_decode", "max_kl"), 1e-9, r.out());
    assertTrue(r.err().contains("chunk 2/2 done") && r.err().contains("ETA"), r.err());
    assertTrue(Pattern.compile("(?m)^q4_0 +576 ").matcher(r.err()).find(), r.err());
    List<String> tsv = Files.readAllLines(dir.resolve("chunks.tsv"));
    assertEquals(1 + 2 * 3, tsv.size(), String.join("\n", tsv));
    assertTrue(Files.readString(dir.resolve("summary.json")).contains("\"complete\":true"));
  }

  /** Our fp16 reference of 2 chunks of 128 tokens as a _logits_ file. */
  static Path saveBase(Path file) {
    Run w = twoChunks("--kv", "fp16", "--decode-check", "0", "--save-base", file.toString());
    assertEquals(0, w.rc(), w.err());
    return file;
  }

  @Test
  void savedBaseReadsBackAsTheReference() throws Exception {
    Path base = saveBase(tmp.resolve("ref.logits"));
    // 20-byte header, 2·128 tokens, 2·63 records of 2·(8192 + 4) bytes
    assertEquals(20 + 4 * 256 + 126L * 2 * (8192 + 4), Files.size(base));
    Run r =
        quality(
            "--model", model.toString(), "--base", base.toString(), "--kv", "fp16,q4_0", "--json");
    assertEquals(0, r.rc(), r.err());
    // the base is our fp16 to the file's uint16 precision (±scale/2, clamped below max−16)
    assertTrue(r.figure("fp16", "mean_kl") < 1e-4, r.out());
    assertEquals(1.0, r.figure("fp16", "same_top"), r.out());
    assertTrue(r.figure("q4_0", "mean_kl") > r.figure("fp16", "mean_kl"), r.out());
  }

  /** {@code node logits.mjs} over {@link #twoChunkArgs}, then {@code more}. */
  static List<String> node(Path script, String... more) {
    List<String> a = new ArrayList<>(List.of("node", script.toString()));
    a.addAll(twoChunkArgs());
    a.addAll(Arrays.asList(more));
    return a;
  }

  @Test
  void llamaCppsOwnBaseFileCompares() throws Exception {
    Path logits = ROOT.resolve("bench/llamacpp/logits.mjs");
    assumeTrue(
        Files.isDirectory(ROOT.resolve("bench/llamacpp/node_modules/node-llama-cpp")),
        "node-llama-cpp is not installed (bench/llamacpp/install.sh)");
    Path base = tmp.resolve("llama.logits");
    Process p =
        new ProcessBuilder(node(logits, "--threads", "2", "--kv", "f16", "--out", base.toString()))
            .redirectErrorStream(true)
            .start();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assumeTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, "logits.mjs failed: " + log);
    Path ours = saveBase(tmp.resolve("ours.logits"));
    byte[] a = Files.readAllBytes(base);
    byte[] b = Files.readAllBytes(ours);
    assertEquals(a.length, b.length, "the same layout byte for byte in size");
    assertArrayEquals(
        Arrays.copyOf(a, 20 + 4 * 256), Arrays.copyOf(b, 20 + 4 * 256), "header and tokens");
    Run r =
        quality("--model", model.toString(), "--base", base.toString(), "--kv", "fp16", "--json");
    assertEquals(0, r.rc(), r.err());
    assertTrue(r.figure("fp16", "mean_kl") < 1e-3, r.out());
    assertTrue(r.figure("fp16", "same_top") > 0.97, r.out());
  }

  @Test
  void badInputIsOneLineAndExitTwo() throws Exception {
    Path bin = Files.write(tmp.resolve("ids.bin"), new byte[8]);
    String[][] cases = {
      {"--model", "MODEL", "--tokens", "TOKENS", "--ctx", "2048"},
      {"--model", "MODEL", "--tokens", bin.toString()},
      {"--model", "MODEL", "--tokens", "TOKENS", "--kv", "fp8"},
      {"--model", "MODEL"},
      {"--model", "MODEL", "--base", bin.toString()},
      {"--model", "MODEL", "--text", tmp.resolve("missing.txt").toString()},
      {"--model", "MODEL", "--tokens", "TOKENS", "--bogus"},
      {"--model", "MODEL", "--tokens", tmp.resolve("missing.u16").toString()},
      {"--config", bin.toString(), "--tokens", "TOKENS"},
    };
    for (String[] c : cases) {
      String[] a = c.clone();
      for (int i = 0; i < a.length; i++) {
        a[i] = a[i].replace("MODEL", model.toString()).replace("TOKENS", tokens.toString());
      }
      Run r = quality(a);
      assertEquals(2, r.rc(), String.join(" ", a) + "\n" + r.err());
      assertEquals(1, r.err().strip().lines().count(), r.err());
      assertTrue(r.err().startsWith("strata-quality: "), r.err());
      assertFalse(r.err().contains("Exception"), "no class name: " + r.err());
    }
    Run gone =
        quality("--model", model.toString(), "--tokens", tmp.resolve("missing.u16").toString());
    assertTrue(
        gone.err().contains("missing.u16: no such file or folder (given as --tokens;"), gone.err());
  }
}
