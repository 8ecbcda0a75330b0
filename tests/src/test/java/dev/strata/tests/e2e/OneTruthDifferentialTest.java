package dev.strata.tests.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.model.DemoModel;
import dev.strata.engine.model.GgmlType;
import dev.strata.engine.model.GgufValue;
import dev.strata.engine.model.GgufValueType;
import dev.strata.engine.model.GgufWriter;
import dev.strata.engine.model.ModelCorpus;
import dev.strata.engine.model.TinyModel;
import dev.strata.engine.plan.PlanItems;
import dev.strata.testsupport.SharedData;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One truth (issue 14, docs/LAUNCH.md): for every case, {@code strata-launch --dry-run}'s verdict
 * (exit code and first error line) is the launch's, and the launcher's plan items equal the
 * engine's own {@code plan:} lines byte for byte for every item both have.
 *
 * <p>Cases: model headers × {int8, q4_0} × contexts — the seed's attention ({@link
 * TinyModel#seedAttention}: its KV pools to the byte, whole and split; strata-ref refuses the seed
 * geometry itself, qwen3next, so the published Qwen3-Next headers are a refusal both sides agree
 * on), gguf-py-shaped headers (llama.cpp converter layouts with a byte vocabulary: with and without
 * {@code attention.key_length}, per-layer {@code head_count_kv} arrays, GGUF v2, head sizes the
 * pools can and cannot hold) and one file of every refusal class of the GGUF reader — and edited
 * configs (bad args, a prompt larger than the pool, digits that are not ASCII, relative paths with
 * the working folder elsewhere, a library built for another CPU, a program instead of a library).
 * Everything runs through the real command line and the real strata-ref; launches are kept short
 * (one prompt token, no decode step).
 */
class OneTruthDifferentialTest {
  @TempDir static Path dir;
  static Path lib;
  static final ObjectMapper JSON = new ObjectMapper();

  /**
   * A launch as short as the engine allows: one prompt token, no decode step (the demo's decode
   * step reads one token's experts, 389 MB, from the shards: seconds each on a loaded machine).
   */
  static final List<String> SHORT = List.of("--prompt-tokens", "1", "--n-predict", "0");

  /** A model under test: its shards (first first), or a path that is not a usable model. */
  record Model(String name, List<Path> shards, boolean refused) {
    Model(String name, List<Path> shards) {
      this(name, shards, false);
    }
  }

  /** What a command decided: its exit code and first error line (null when it started). */
  record Verdict(int code, String firstError) {}

  @BeforeAll
  static void setUp() throws IOException {
    lib = E2e.refLibrary();
  }

  // ---- model headers ----

  /**
   * A dense model as llama.cpp's converter writes it (gguf-py's layout): {@code blocks} blocks,
   * each with attention ({@code attn_q/k/v/output}) and a gated FFN.
   */
  record Shape(
      String arch,
      int blocks,
      int heads,
      int kvHeads,
      int headDim,
      boolean keyLength,
      boolean kvArray,
      int version) {}

  static Model dense(String name, Shape s) throws IOException {
    Path d = Files.createDirectories(dir.resolve("models").resolve(name));
    int width = s.heads() * s.headDim();
    int ffn = 2 * width;
    String a = s.arch() + ".";
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("general.architecture", GgufValue.string(s.arch()));
    m.put("general.type", GgufValue.string("model"));
    m.put("general.name", GgufValue.string(name));
    m.put(a + "block_count", GgufValue.u32(s.blocks()));
    m.put(a + "context_length", GgufValue.u32(131_072));
    m.put(a + "embedding_length", GgufValue.u32(width));
    m.put(a + "feed_forward_length", GgufValue.u32(ffn));
    m.put(a + "attention.head_count", GgufValue.u32(s.heads()));
    if (s.kvArray()) {
      List<GgufValue> per = new ArrayList<>();
      for (int i = 0; i < s.blocks(); i++) {
        per.add(GgufValue.u32(s.kvHeads()));
      }
      m.put(a + "attention.head_count_kv", GgufValue.array(GgufValueType.UINT32, per));
    } else {
      m.put(a + "attention.head_count_kv", GgufValue.u32(s.kvHeads()));
    }
    if (s.keyLength()) {
      m.put(a + "attention.key_length", GgufValue.u32(s.headDim()));
      m.put(a + "attention.value_length", GgufValue.u32(s.headDim()));
    }
    m.put(a + "attention.layer_norm_rms_epsilon", GgufValue.f32(1e-5f));
    m.put(a + "rope.freq_base", GgufValue.f32(500_000f));
    // the byte-level vocabulary of TinyModel (256 tokens): strata-ref loads only a model it can
    // tokenize for, so an architecture it computes starts (zero weights: the launch is one token)
    TinyModel.dense("llama")
        .metadata()
        .forEach(
            (k, v) -> {
              if (k.startsWith("tokenizer.")) {
                m.put(k, v);
              }
            });
    List<GgufWriter.Tensor> t = new ArrayList<>();
    int vocab = 256;
    t.add(GgufWriter.Tensor.of("token_embd.weight", GgmlType.Q8_0, width, vocab));
    for (int n = 0; n < s.blocks(); n++) {
      String b = "blk." + n + ".";
      t.add(GgufWriter.Tensor.of(b + "attn_norm.weight", GgmlType.F32, width));
      t.add(GgufWriter.Tensor.of(b + "attn_q.weight", GgmlType.Q8_0, width, width));
      t.add(
          GgufWriter.Tensor.of(
              b + "attn_k.weight", GgmlType.Q8_0, width, (long) s.kvHeads() * s.headDim()));
      t.add(
          GgufWriter.Tensor.of(
              b + "attn_v.weight", GgmlType.Q8_0, width, (long) s.kvHeads() * s.headDim()));
      t.add(GgufWriter.Tensor.of(b + "attn_output.weight", GgmlType.Q8_0, width, width));
      t.add(GgufWriter.Tensor.of(b + "ffn_norm.weight", GgmlType.F32, width));
      t.add(GgufWriter.Tensor.of(b + "ffn_gate.weight", GgmlType.Q8_0, width, ffn));
      t.add(GgufWriter.Tensor.of(b + "ffn_up.weight", GgmlType.Q8_0, width, ffn));
      t.add(GgufWriter.Tensor.of(b + "ffn_down.weight", GgmlType.Q8_0, ffn, width));
    }
    t.add(GgufWriter.Tensor.of("output_norm.weight", GgmlType.F32, width));
    t.add(GgufWriter.Tensor.of("output.weight", GgmlType.Q8_0, width, vocab));
    Path f = d.resolve(name + ".gguf");
    GgufWriter.write(f, m, t);
    if (s.version() != 3) {
      patchU32(f, 4, s.version());
    }
    return new Model(name, List.of(f));
  }

  static void patchU32(Path f, long offset, long v) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
      raf.seek(offset);
      raf.write(new byte[] {(byte) v, (byte) (v >> 8), (byte) (v >> 16), (byte) (v >> 24)});
    }
  }

  /** A valid small model, then its bytes changed by {@code edit}: one refusal class each. */
  static Model broken(String name, UnaryOperator<byte[]> edit) throws IOException {
    Model base = dense(name + "-base", new Shape("llama", 2, 4, 2, 64, true, false, 3));
    byte[] bytes = Files.readAllBytes(base.shards().getFirst());
    Path d = Files.createDirectories(dir.resolve("models").resolve(name));
    Path f = d.resolve(name + ".gguf");
    Files.write(f, edit.apply(bytes));
    return new Model(name, List.of(f), true);
  }

  static List<Model> models() throws IOException {
    List<Model> out = new ArrayList<>();
    // the seed's attention (its KV pools to the byte) as a model strata-ref computes, whole and
    // split like the demo set; the seed geometry itself (qwen3next) strata-ref refuses
    for (int shards : new int[] {1, 4}) {
      out.add(
          new Model(
              "seed-attention-" + shards,
              TinyModel.seedAttention()
                  .write(dir.resolve("models").resolve("seed-" + shards), "seed", shards, 1)));
    }
    // gguf-py-shaped headers: llama.cpp converter layouts
    int[][] dims = {
      // blocks, heads, kvHeads, headDim
      {2, 4, 1, 64},
      {2, 4, 2, 64},
      {2, 4, 4, 64},
      {2, 8, 2, 128},
      {4, 8, 8, 128},
      {2, 2, 1, 256},
      {2, 2, 2, 256},
      {3, 4, 2, 80},
      {2, 2, 1, 96},
      {2, 1, 1, 512},
      {16, 4, 1, 64},
    };
    for (int[] g : dims) {
      String base = "b" + g[0] + "h" + g[1] + "kv" + g[2] + "d" + g[3];
      out.add(dense("llama-" + base, new Shape("llama", g[0], g[1], g[2], g[3], true, false, 3)));
      // the converter of Llama 3.1 writes no key_length: head size = embedding / heads
      out.add(
          dense("nokeylen-" + base, new Shape("llama", g[0], g[1], g[2], g[3], false, false, 3)));
    }
    out.add(dense("qwen2-kvarray", new Shape("qwen2", 2, 4, 2, 64, true, true, 3)));
    out.add(dense("lfm2-kvarray", new Shape("lfm2", 2, 4, 2, 128, false, true, 3)));
    out.add(dense("llama-v2", new Shape("llama", 2, 4, 2, 64, true, false, 2)));
    out.add(dense("llama-v2-256", new Shape("llama", 2, 2, 1, 256, true, false, 2)));
    out.add(dense("mistral-8kv", new Shape("mistral", 2, 8, 8, 128, true, false, 3)));
    out.add(dense("gemma-256", new Shape("gemma", 2, 4, 1, 256, true, false, 3)));
    // one of every refusal class of the GGUF reader
    out.add(broken("bad-magic", b -> set(b, 0, (byte) 'X')));
    out.add(broken("version-1", b -> le32(b, 4, 1)));
    out.add(broken("version-4", b -> le32(b, 4, 4)));
    out.add(broken("big-endian", b -> be32(b, 4, 3)));
    out.add(broken("truncated-header", b -> java.util.Arrays.copyOf(b, 40)));
    out.add(broken("absurd-tensor-count", b -> le64(b, 8, 1L << 40)));
    out.add(broken("absurd-kv-count", b -> le64(b, 16, 1L << 40)));
    out.add(broken("empty", b -> new byte[0]));
    out.add(broken("unknown-value-type", b -> firstValueType(b, 99)));
    out.add(
        broken(
            "unknown-ggml-type",
            b -> replaceAfter(b, "token_embd.weight", 2 * 8 + 4, new byte[] {99, 0, 0, 0})));
    out.add(noArchitecture());
    out.add(splitMissingShard());
    out.add(splitForeignShard());
    out.add(inconsistentBlockCount());
    out.add(new Model("not-found", List.of(dir.resolve("models/absent.gguf")), true));
    Path vocab = SharedData.resolve("gguf/ggml-vocab-llama.gguf").orElse(null);
    if (vocab != null && Files.isRegularFile(vocab)) {
      out.add(new Model("vocab-only", List.of(vocab), true));
    }
    return out;
  }

  static Model noArchitecture() throws IOException {
    Path d = Files.createDirectories(dir.resolve("models/no-arch"));
    SequencedMap<String, GgufValue> m = new LinkedHashMap<>();
    m.put("general.name", GgufValue.string("tokenizer"));
    Path f = d.resolve("no-arch.gguf");
    GgufWriter.write(f, m, List.of(GgufWriter.Tensor.of("x.weight", GgmlType.F32, 32)));
    return new Model("no-architecture", List.of(f), true);
  }

  static Model splitMissingShard() throws IOException {
    Path d = Files.createDirectories(dir.resolve("models/split-missing"));
    List<Path> all = DemoModel.write(d, 3);
    Files.delete(all.get(2));
    return new Model("split-missing-shard", all, true);
  }

  static Model splitForeignShard() throws IOException {
    Path d = Files.createDirectories(dir.resolve("models/split-foreign"));
    List<Path> all = DemoModel.write(d, 2);
    Path other = Files.createDirectories(dir.resolve("models/split-foreign-other"));
    List<Path> three = DemoModel.write(other, 3);
    // a rename, not a copy: the shards are sparse gigabytes
    Files.move(three.get(1), all.get(1), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    return new Model("split-foreign-shard", all, true);
  }

  static Model inconsistentBlockCount() throws IOException {
    Model m = dense("inconsistent-base", new Shape("llama", 4, 4, 2, 64, true, false, 3));
    // block_count 4 → 2: the file holds tensors of blocks 2 and 3
    Path f = m.shards().getFirst();
    byte[] b = Files.readAllBytes(f);
    Path d = Files.createDirectories(dir.resolve("models/inconsistent"));
    Path out = d.resolve("inconsistent.gguf");
    Files.write(out, replaceAfter(b, "llama.block_count", 4, new byte[] {2, 0, 0, 0}));
    return new Model("inconsistent-blocks", List.of(out), true);
  }

  static byte[] set(byte[] b, int at, byte v) {
    byte[] c = b.clone();
    c[at] = v;
    return c;
  }

  /** {@code b} with {@code n} bytes of {@code v} at {@code at}, little- or big-endian. */
  static byte[] put(byte[] b, int at, long v, int n, boolean little) {
    byte[] c = b.clone();
    for (int i = 0; i < n; i++) {
      c[at + (little ? i : n - 1 - i)] = (byte) (v >> (8 * i));
    }
    return c;
  }

  static byte[] le32(byte[] b, int at, int v) {
    return put(b, at, v, 4, true);
  }

  static byte[] be32(byte[] b, int at, int v) {
    return put(b, at, v, 4, false);
  }

  static byte[] le64(byte[] b, int at, long v) {
    return put(b, at, v, 8, true);
  }

  /** The type of the first metadata value (after magic, version, counts and the first key). */
  static byte[] firstValueType(byte[] b, int type) {
    int keyLen = (int) readLe64(b, 24);
    return le32(b, 32 + keyLen, type);
  }

  static long readLe64(byte[] b, int at) {
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (b[at + i] & 0xff);
    }
    return v;
  }

  /** Overwrites bytes at {@code skip} bytes after the first occurrence of {@code marker}. */
  static byte[] replaceAfter(byte[] b, String marker, int skip, byte[] with) {
    byte[] m = marker.getBytes(StandardCharsets.US_ASCII);
    outer:
    for (int i = 0; i + m.length <= b.length; i++) {
      for (int j = 0; j < m.length; j++) {
        if (b[i + j] != m[j]) {
          continue outer;
        }
      }
      byte[] c = b.clone();
      int at = i + m.length + skip;
      System.arraycopy(with, 0, c, at, with.length);
      return c;
    }
    throw new IllegalArgumentException("no " + marker);
  }

  // ---- configs, runs, verdicts ----

  /**
   * Writes a config with these args as they are, valid or not: the codec writes a config with valid
   * args, then its args list is replaced by {@code args} (YAML single-quoted), as a user's edit
   * would.
   */
  static Path config(
      Path file, String library, List<String> shards, List<String> args, Map<String, String> env)
      throws IOException {
    EngineConfig c =
        new EngineConfig(
            EngineConfig.SCHEMA,
            // pinned as strata-setup pins it: a dry run asks only a pinned library's own check
            new EngineConfig.Engine("cpu-reference", library, E2e.pin(Path.of(library))),
            new EngineConfig.Model(shards),
            E2e.here(),
            List.of("--model", shards.getFirst()),
            env);
    String yaml = ConfigCodec.write(c);
    int from = yaml.indexOf("\nargs:\n") + "\nargs:\n".length();
    int to = yaml.indexOf("\nenv:", from);
    assertTrue(from > 10 && to > from, yaml);
    StringBuilder a = new StringBuilder();
    for (String arg : args) {
      a.append("- '").append(arg.replace("'", "''")).append("'\n");
    }
    Files.createDirectories(file.getParent());
    Files.writeString(
        file, yaml.substring(0, from) + a + yaml.substring(to + 1), StandardCharsets.UTF_8);
    return file;
  }

  static List<String> args(Model m, long ctx, String kv, List<String> extra) {
    List<String> a = new ArrayList<>(List.of("--model", m.shards().getFirst().toString()));
    a.addAll(List.of("--ctx", Long.toString(ctx)));
    if (kv != null) {
      a.addAll(List.of("--kv", kv));
    }
    a.addAll(extra);
    return a;
  }

  /** The first line on stderr that is not a warning, without its prefix; null when none. */
  static String firstError(String err) {
    for (String l : err.lines().toList()) {
      if (l.startsWith("strata-launch: ") && !l.startsWith("strata-launch: warning: ")) {
        return l;
      }
    }
    return null;
  }

  /** --dry-run --json: the verdict, and the document (null for a config error). */
  record DryRun(Verdict verdict, JsonNode json, String text) {}

  static DryRun dryRun(Path cfg) throws IOException {
    E2e.Result r = E2e.launch("--config", cfg.toString(), "--dry-run", "--json");
    if (r.code() == 2 || r.out().isBlank()) {
      return new DryRun(new Verdict(r.code(), firstError(r.err())), null, r.err());
    }
    JsonNode j = JSON.readTree(r.out());
    String refusal =
        j.get("refusal").isNull() ? null : "strata-launch: " + j.get("refusal").asText();
    assertEquals(j.get("exit_code").asInt(), r.code(), r.out());
    return new DryRun(new Verdict(r.code(), refusal), j, r.out());
  }

  static Verdict launch(Path cfg) {
    E2e.Result r = E2e.launch("--config", cfg.toString());
    assertTrue(!r.err().contains("\tat "), "no stack trace:\n" + r.err());
    return new Verdict(r.code(), r.code() == 0 ? null : firstError(r.err()));
  }

  int itemsCompared;

  /** Runs one case: verdicts equal; items equal where both exist. Returns the dry run. */
  DryRun same(String what, Path cfg) throws IOException {
    long t0 = System.nanoTime();
    DryRun d = dryRun(cfg);
    long t1 = System.nanoTime();
    Verdict l = launch(cfg);
    // where the time goes (the test must stay fast): one line per case in the test's output
    System.out.printf(
        "one-truth %-44s dry-run %5d ms, launch %5d ms, exit %d%n",
        what, (t1 - t0) / 1_000_000, (System.nanoTime() - t1) / 1_000_000, l.code());
    assertEquals(d.verdict(), l, what + ": --dry-run vs launch\n" + d.text());
    if (d.json() != null && d.json().get("engine").isObject()) {
      JsonNode e = d.json().get("engine");
      List<String> engineLines = new ArrayList<>();
      e.get("plan").forEach(n -> engineLines.add(n.asText()));
      List<String> launcherLines = new ArrayList<>();
      d.json().get("launcher_items").forEach(n -> launcherLines.add(n.asText()));
      Map<String, String> engine = PlanItems.byName(engineLines);
      Map<String, String> launcher = PlanItems.byName(launcherLines);
      for (Map.Entry<String, String> en : engine.entrySet()) {
        String ours = launcher.get(en.getKey());
        if (ours != null) {
          assertEquals(en.getValue(), ours, what + ": item " + en.getKey());
          itemsCompared++;
        }
      }
      if (d.verdict().code() == 0 && e.get("checked").asBoolean()) {
        assertEquals(
            engine.keySet(),
            launcher.keySet(),
            what + ": the engine allocates exactly the plan's items");
      }
    }
    return d;
  }

  /**
   * The cases of the header test that start: 48 measured on 2026-12-02 (the seed attention whole
   * and split, the llama layouts strata-ref computes; its one-truth lines say which).
   */
  static final int STARTED_AT_LEAST = 48;

  @Test
  void dryRunAndLaunchAgreeOnEveryModelHeaderFormatAndContext() throws IOException {
    List<Model> models = models();
    assertTrue(models.size() >= 40, "at least 40 model headers, have " + models.size());
    int cases = 0;
    int started = 0;
    for (Model m : models) {
      for (String kv : new String[] {"int8", "q4_0"}) {
        // a file the reader refuses is refused whatever the context: one context for those
        long[] contexts = m.refused() ? new long[] {4096} : new long[] {64, 4096};
        for (long ctx : contexts) {
          String name = m.name() + "-" + kv + "-" + ctx;
          Path cfg =
              config(
                  dir.resolve("cfg").resolve(name + ".yaml"),
                  lib.toString(),
                  m.shards().stream().map(Path::toString).toList(),
                  args(m, ctx, kv, SHORT),
                  Map.of());
          if (same(name, cfg).verdict().code() == 0) {
            started++;
          }
          cases++;
        }
      }
    }
    assertTrue(cases >= 120, "cases: " + cases);
    assertTrue(itemsCompared > 0, "some items were compared");
    // the agreement is not only on refusals: the seed's attention and the converter layouts of the
    // architectures strata-ref computes start
    assertTrue(started >= STARTED_AT_LEAST, "cases that started: " + started + " of " + cases);
  }

  /**
   * Issue 20: the model this toolkit exists for, as people download it. Headers of the published
   * shapes (engine's ModelCorpus, figures in docs/MODELS.md): Qwen3-Next-80B-A3B without and with
   * its MTP block, as the current converter writes it (issue 28: attn_qkv in its linear-attention
   * layers), and a Qwen3.5/3.6-style hybrid MoE, each with {@code --spec 0} and {@code --spec 2},
   * in int8 and q4_0 at 32K. strata-ref does not compute these architectures: {@code --dry-run}
   * (the launcher's plan and the engine's own check) and the launch agree on its refusal (exit 3,
   * the line naming the architecture), and the launcher's plan holds the figures of docs/MODELS.md:
   * the 12 full-attention layers' pools, the drafter's pool only with {@code --spec} > 0 on the
   * file that has the MTP block, and the recurrent state of the 36 Gated DeltaNet layers.
   */
  @Test
  void dryRunTheEnginesCheckAndTheLaunchAgreeOnQwen3NextWithAndWithoutItsMtpBlock()
      throws IOException {
    Path models = Files.createDirectories(dir.resolve("models/corpus"));
    Map<String, Path> files = new LinkedHashMap<>();
    for (ModelCorpus.Spec s : ModelCorpus.all()) {
      if (s.name.equals("Qwen3-Next-80B-A3B")
          || s.name.equals("Qwen3-Next-80B-A3B + MTP, --spec 0")
          || s.name.equals("Qwen3.5-style hybrid MoE")
          // issue 28: as the current converter writes it (attn_qkv in the linear layers)
          || s.name.equals("Qwen3-Next-80B-A3B, attn_qkv linear layers (current converter)")) {
        files.put(s.name.replace(", --spec 0", ""), s.write(models));
      }
    }
    assertEquals(4, files.size(), "the headers of issues 20 and 28 are in the corpus: " + files);
    int cases = 0;
    for (Map.Entry<String, Path> f : files.entrySet()) {
      boolean mtp = f.getKey().contains("MTP");
      for (String kv : new String[] {"int8", "q4_0"}) {
        for (String spec : new String[] {"0", "2"}) {
          String name = "corpus " + f.getKey() + " " + kv + " --spec " + spec;
          DryRun d = seedCase(name, f.getValue(), kv, spec);
          assertEquals(3, d.verdict().code(), name + ": strata-ref refuses it\n" + d.text());
          assertTrue(
              d.verdict().firstError().contains(" is not one strata-ref computes (it computes "),
              name + ": the engine's line\n" + d.text());
          Map<String, String> byName = launcherItems(d);
          if (!f.getKey().startsWith("Qwen3.5")) {
            assertEquals(SEED_STATE, PlanItems.bytes(byName.get("ssm_state")), name + ": state");
            if (kv.equals("q4_0")) {
              long want = mtp && !spec.equals("0") ? SEED_Q4_POOLS_DRAFTER : SEED_Q4_POOLS;
              assertEquals(want, PlanItems.bytes(byName.get("kv")), name + ": KV pools");
            }
          }
          cases++;
        }
      }
    }
    assertEquals(16, cases);
  }

  /** docs/MODELS.md: q4_0 at 32K = 12 layers x 32,896 cells x 576 B. */
  static final long SEED_Q4_POOLS = 227_377_152L;

  /** The same with the MTP drafter's layer (13 layers). */
  static final long SEED_Q4_POOLS_DRAFTER = 246_325_248L;

  /** The 36 Gated DeltaNet layers' state of one sequence (docs/MODELS.md). */
  static final long SEED_STATE = 36L * (98_304 + 2_097_152);

  /**
   * The same cases on {@link TinyModel#seedAttention} (the seed's 12 attention layers of 2 KV heads
   * x 256: its pools to the byte), which strata-ref computes: with {@code --spec 0} and {@code
   * --spec 2} in int8 and q4_0 at 32K the dry run and the launch agree, it starts, the engine
   * allocates exactly the plan's items, the q4_0 pools are the seed's figure, and {@code --spec 2}
   * on a model without an MTP block is a note of the plan and a line of the engine's.
   */
  @Test
  void dryRunTheEnginesCheckAndTheLaunchAgreeOnTheSeedsAttention() throws IOException {
    Path file =
        TinyModel.seedAttention().write(dir.resolve("models/seed-attention"), "seed", 1, 7).get(0);
    int cases = 0;
    for (String kv : new String[] {"int8", "q4_0"}) {
      for (String spec : new String[] {"0", "2"}) {
        String name = "seed attention " + kv + " --spec " + spec;
        int before = itemsCompared;
        DryRun d = seedCase(name, file, kv, spec);
        assertEquals(0, d.verdict().code(), name + ": plans and starts\n" + d.text());
        assertTrue(d.json().get("engine").get("checked").asBoolean(), name);
        assertTrue(itemsCompared > before, name + ": the engine's items were compared");
        String says = "asks for MTP drafting but the model has no MTP block";
        boolean undrafted = !spec.equals("0");
        assertEquals(
            undrafted,
            d.json().get("plan").get("notes").toString().contains(says),
            name + ": the plan's note\n" + d.text());
        if (undrafted && kv.equals("q4_0")) {
          E2e.Result run = E2e.launch("--config", cfgPath(name).toString());
          assertEquals(0, run.code(), run.err());
          // a warning of the engine's: on stderr, prefixed (LogRouter)
          assertTrue(
              run.err()
                  .lines()
                  .anyMatch(
                      l ->
                          l.startsWith("warn: spec: --spec 2 " + says)
                              && l.endsWith("; the engine runs without drafting")),
              name + ": the engine's line\n" + run.err());
        }
        if (kv.equals("q4_0")) {
          assertEquals(
              SEED_Q4_POOLS, PlanItems.bytes(launcherItems(d).get("kv")), name + ": KV pools");
        }
        cases++;
      }
    }
    assertEquals(4, cases);
  }

  /** One case of the seed's: {@code file} at 32K with {@code --kv} and {@code --spec}, short. */
  DryRun seedCase(String name, Path file, String kv, String spec) throws IOException {
    List<String> extra = new ArrayList<>(List.of("--spec", spec));
    extra.addAll(SHORT);
    Path cfg =
        config(
            cfgPath(name),
            lib.toString(),
            List.of(file.toString()),
            args(new Model(name, List.of(file)), 32_768, kv, extra),
            Map.of());
    return same(name, cfg);
  }

  static Map<String, String> launcherItems(DryRun d) {
    List<String> lines = new ArrayList<>();
    d.json().get("launcher_items").forEach(n -> lines.add(n.asText()));
    return PlanItems.byName(lines);
  }

  @Test
  void dryRunAndLaunchAgreeOnEditedConfigs() throws IOException {
    Model m = dense("edit-base", new Shape("llama", 2, 4, 2, 64, true, false, 3));
    Model m256 = dense("edit-base-256", new Shape("llama", 2, 2, 1, 256, true, false, 3));
    String first = m.shards().getFirst().toString();
    List<String> shards = List.of(first);
    // name | the args that follow --model and --ctx 64 (a table: one bad use a row)
    Map<String, List<String>> badArgs = new LinkedHashMap<>();
    for (String row :
        """
          unknown-flag | --ctxx | 64
          flag-twice | --threads | 1 | --threads | 2
          spec-out-of-range | --spec | 17
          threads-word | --threads | two
          kv-k8v4 | --kv | k8v4
          kv-fp16 | --kv | fp16
          experts-resident | --experts | resident
          mem-budget-1mb | --mem-budget-mb | 1
          kv-resident-pc-only | --kv-resident
          value-missing | --threads
          negative | --threads | -1
          plus-sign | --threads | +1
          fullwidth-threads | --threads | \uff12
          arabic-threads | --threads | \u0662
          devanagari-spec | --spec | \u0967
          fullwidth-n-predict | --n-predict | \uff11
          arabic-prompt | --prompt-tokens | \u0661
        """
            .lines()
            .toList()) {
      List<String> cells = Stream.of(row.split("\\|")).map(String::strip).toList();
      badArgs.put(cells.getFirst(), cells.subList(1, cells.size()));
    }
    badArgs.put("blank-digit", List.of("--threads", " 1")); // a value with a leading space
    int cases = 0;
    for (Map.Entry<String, List<String>> e : badArgs.entrySet()) {
      List<String> a = new ArrayList<>(List.of("--model", first, "--ctx", "64"));
      a.addAll(e.getValue());
      if (!a.contains("--prompt-tokens")) {
        a.addAll(List.of("--prompt-tokens", "1"));
      }
      if (!a.contains("--n-predict")) {
        a.addAll(List.of("--n-predict", "1"));
      }
      same(e.getKey(), config(cfgPath(e.getKey()), lib.toString(), shards, a, Map.of()));
      cases++;
    }
    // digits of other scripts in --ctx (the engine refused them; the flag table took them)
    for (String ctx : new String[] {"\uff14\uff10\uff19\uff16", "\u0664\u0660\u0669\u0666"}) {
      List<String> a = List.of("--model", first, "--ctx", ctx, "--prompt-tokens", "1");
      String name = "ctx-digits-" + cases;
      same(name, config(cfgPath(name), lib.toString(), shards, a, Map.of()));
      cases++;
    }
    // a prompt larger than the pool: --prompt-tokens + --n-predict > --ctx + 128
    for (long[] p : new long[][] {{64, 150, 43}, {64, 192, 0}, {64, 193, 0}, {64, 512, 64}}) {
      List<String> a =
          List.of(
              "--model",
              first,
              "--ctx",
              Long.toString(p[0]),
              "--prompt-tokens",
              Long.toString(p[1]),
              "--n-predict",
              Long.toString(p[2]));
      String name = "prompt-" + p[1] + "-" + p[2];
      same(name, config(cfgPath(name), lib.toString(), shards, a, Map.of()));
      cases++;
    }
    // env switches the engine reads at start
    Map<String, Map<String, String>> envs = new LinkedHashMap<>();
    envs.put("rot-int8", Map.of("STRATA_KV_ROT", "1"));
    envs.put("rot-0", Map.of("STRATA_KV_ROT", "0"));
    envs.put("prompt-gemm-0", Map.of("STRATA_METAL_PROMPT_GEMM", "0"));
    for (Map.Entry<String, Map<String, String>> e : envs.entrySet()) {
      List<String> a =
          List.of(
              "--model",
              m256.shards().getFirst().toString(),
              "--ctx",
              "64",
              "--kv",
              "int8",
              "--prompt-tokens",
              "1",
              "--n-predict",
              "1");
      same(
          e.getKey(),
          config(
              cfgPath(e.getKey()),
              lib.toString(),
              List.of(m256.shards().getFirst().toString()),
              a,
              e.getValue()));
      cases++;
    }
    // relative paths, resolved against the config's folder (the working folder is elsewhere)
    Path relDir = Files.createDirectories(dir.resolve("rel/conf"));
    Path relModel = relDir.resolve("m/model.gguf");
    Files.createDirectories(relModel.getParent());
    Files.copy(m.shards().getFirst(), relModel);
    assertTrue(!Path.of("").toAbsolutePath().startsWith(relDir), "the working folder is elsewhere");
    for (String model : new String[] {"m/model.gguf", "./m/model.gguf", "m/../m/model.gguf"}) {
      List<String> a = new ArrayList<>(List.of("--model", model, "--ctx", "64"));
      a.addAll(SHORT);
      Path cfg =
          config(
              relDir.resolve("rel" + cases + ".yaml"), lib.toString(), List.of(model), a, Map.of());
      same("relative " + model, cfg);
      DryRun d = dryRun(cfg);
      assertEquals(0, d.verdict().code(), d.text());
      assertEquals(relModel.toString(), d.json().get("args").get(1).asText(), "absolute --model");
      cases++;
    }
    // libraries: a foreign ELF (e_machine aarch64 / x86-64, whichever this is not), a program,
    // an ABI 1 engine
    Path libs = E2e.privateDir(dir.resolve("libs"));
    Path foreign = libs.resolve("libforeign.so");
    byte[] elf = Files.readAllBytes(lib);
    int machine = (elf[18] & 0xff) | (elf[19] & 0xff) << 8;
    int other = machine == 183 ? 62 : 183; // EM_AARCH64 183, EM_X86_64 62
    Files.write(foreign, set(set(elf, 18, (byte) other), 19, (byte) (other >> 8)));
    Path program = libs.resolve("true.so");
    Path trueBin = Path.of("/usr/bin/true");
    if (Files.isRegularFile(trueBin)) {
      Files.copy(trueBin, program);
    } else {
      Files.write(program, "#!/bin/sh\n".getBytes(StandardCharsets.US_ASCII));
    }
    List<String> ok = new ArrayList<>(List.of("--model", first, "--ctx", "64"));
    ok.addAll(SHORT);
    for (Path l : List.of(foreign, program)) {
      Path cfg = config(cfgPath(l.getFileName().toString()), l.toString(), shards, ok, Map.of());
      same(l.getFileName().toString(), cfg);
      assertEquals(3, dryRun(cfg).verdict().code());
      cases++;
    }
    assertTrue(cases >= 30, "edited configs: " + cases);
  }

  @Test
  void anAbi1EngineStillLaunchesAndTheDryRunSaysTheLauncherDecided() throws IOException {
    Path abi1 = lib.getParent().resolve("abi1").resolve(lib.getFileName());
    assertTrue(Files.isRegularFile(abi1), "the ABI 1 test build of strata-ref is at " + abi1);
    Model m = dense("abi1-base", new Shape("llama", 2, 4, 2, 64, true, false, 3));
    List<String> a = args(m, 64, null, SHORT);
    Path cfg =
        config(
            cfgPath("abi1"),
            abi1.toString(),
            List.of(m.shards().getFirst().toString()),
            a,
            Map.of());
    DryRun d = dryRun(cfg);
    assertEquals(0, d.verdict().code(), d.text());
    assertEquals("launcher", d.json().get("verdict_from").asText());
    assertTrue(!d.json().get("engine").get("checked").asBoolean());
    E2e.Result text = E2e.launch("--config", cfg.toString(), "--dry-run");
    assertTrue(
        text.out()
            .contains(
                "verdict from the launcher's own rules (the ABI 1 engine has no"
                    + " strata_engine_check)"),
        text.out());
    E2e.Result r = E2e.launch("--config", cfg.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("(ABI 1)"), r.out());
    same("abi1", cfg);
  }

  @Test
  void planShowsTheEnginesOwnItemsBesideThePlan() throws IOException {
    Model m = dense("plan-base", new Shape("llama", 2, 4, 2, 64, true, false, 3));
    List<String> shards = List.of(m.shards().getFirst().toString());
    Path cfg =
        config(cfgPath("plan"), lib.toString(), shards, args(m, 4096, null, SHORT), Map.of());
    E2e.Result r = E2e.launch("--config", cfg.toString(), "--plan");
    assertEquals(0, r.code(), r.err());
    assertTrue(
        r.out().contains("engine items: what strata-ref 0.1.0 (cpu) itself would allocate"),
        r.out());
    assertTrue(r.out().lines().anyMatch(l -> l.matches("  kv +\\d+ +\\d+  same")), r.out());
    // an architecture strata-ref does not compute: its check refuses, so it has no items, and the
    // plan says that in one line (not a row per item "not allocated by this engine")
    Model mistral = dense("plan-mistral", new Shape("mistral", 2, 8, 8, 128, true, false, 3));
    Path refused =
        config(
            cfgPath("plan-refused"),
            lib.toString(),
            List.of(mistral.shards().getFirst().toString()),
            args(mistral, 4096, null, SHORT),
            Map.of());
    E2e.Result x = E2e.launch("--config", refused.toString(), "--plan");
    assertEquals(0, x.code(), x.err());
    assertTrue(
        x.out()
            .contains(
                "engine items: none: strata-ref 0.1.0 (cpu) refuses this config"
                    + " (strata_engine_check returned 3; standard error says why)"),
        x.out());
    assertTrue(!x.out().contains("not allocated by this engine"), x.out());
    assertTrue(x.err().contains("architecture mistral is not one strata-ref computes"), x.err());
    // a library that is not there: the plan still prints, and says why the items are missing
    Path gone =
        config(
            cfgPath("plan-no-lib"),
            dir.resolve("nowhere/libstrata_ref.so").toString(),
            shards,
            args(m, 4096, null, SHORT),
            Map.of());
    E2e.Result n = E2e.launch("--config", gone.toString(), "--plan");
    assertEquals(0, n.code(), n.err());
    assertTrue(n.out().contains("engine items: the engine's own items are not shown: "), n.out());
  }

  static Path cfgPath(String name) {
    return dir.resolve("edited").resolve(name.replaceAll("[^A-Za-z0-9_.-]", "_") + ".yaml");
  }
}
