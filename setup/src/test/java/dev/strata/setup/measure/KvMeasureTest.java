package dev.strata.setup.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.DemoModel;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.GgufReader;
import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KvMeasure} and {@link KvMeasureCache} through the real strata-ref on the committed demo
 * model (templates/demo-model/tiny-qwen3-q4_k_m.gguf), one chunk of 64 tokens: the key (another
 * model sha256, engine or text is another entry), a hostile cache ignored with one line, Ctrl-C
 * caching nothing, a model that is gone and one the engine refuses each one line.
 */
class KvMeasureTest {
  static final Path MODEL = RepoRoot.resolve("templates/demo-model/tiny-qwen3-q4_k_m.gguf");
  static final KvMeasure.Plan SMALL = new KvMeasure.Plan(64, 1);

  @TempDir Path tmp;
  final List<String> said = new ArrayList<>();

  KvMeasureCache cache() {
    return new KvMeasureCache(tmp.resolve("cache/kv-quality"), said::add);
  }

  KvMeasure measure(KvMeasureCache cache) {
    Path lib = RepoRoot.refLibrary();
    assumeTrue(Files.isRegularFile(lib), "strata-ref is not built (./strata build)");
    return new KvMeasure(cache, lib, SMALL, said::add);
  }

  static KvMeasurement entry(KvMeasurement.Key key) {
    return new KvMeasurement(
        key,
        64,
        1,
        31,
        0.5,
        "2026-12-02T00:00:00Z",
        40.0,
        Map.of(KvFormat.Q4_0, new KvMeasurement.Figures(41.0, 0.01, 0.9, 0.02)));
  }

  static final KvMeasurement.Key KEY =
      new KvMeasurement.Key(
          List.of("a".repeat(64)), "strata-ref 0.1.0 (cpu)", "text", "b".repeat(64));

  @Test
  void measuresCachesAndQuotesTheFigures() throws IOException {
    KvMeasureCache cache = cache();
    KvMeasure m = measure(cache);
    GgufModel model = GgufReader.readModel(MODEL);
    KvMeasure.Outcome o = m.measure(model, List.of(KvFormat.INT8, KvFormat.Q4_0), r -> () -> {});
    KvMeasurement x =
        assertInstanceOf(KvMeasure.Outcome.Measured.class, o, said.toString()).measurement();
    assertEquals(31, x.positions()); // positions 32..62 of one chunk of 64
    assertEquals(List.of(KvFormat.INT8, KvFormat.Q4_0), List.copyOf(x.formats().keySet()));
    assertTrue(x.formats().get(KvFormat.Q4_0).meanKl() > x.formats().get(KvFormat.INT8).meanKl());
    assertEquals(
        "48982ac275ff386c231ad0de68f3726e6d28df16debd7ad06838113b4dff9e71",
        x.key().modelSha256().getFirst(),
        "the shard's sha256 (templates/demo-model/README.md)");
    assertTrue(x.key().engine().startsWith("strata-ref "), x.key().engine());
    assertTrue(
        said.getFirst().startsWith("measuring int8,q4_0 against fp16 KV: 1 chunks of 64"),
        said.toString());
    assertTrue(said.stream().anyMatch(l -> l.contains("chunk 1/1 done")), said.toString());
    // cached under its key, read back equal; the shard's hash is remembered
    assertEquals(x, cache.find(x.key()).orElseThrow());
    assertEquals(x, m.cached(model).orElseThrow());
    String q = x.quote(List.of(KvFormat.INT8, KvFormat.Q4_0));
    assertTrue(
        q.contains("31 positions scored") && q.contains("q4_0 against fp16 KV: same top-1 "), q);
    try (Stream<Path> s = Files.list(cache.dir())) {
      assertTrue(s.noneMatch(p -> p.toString().endsWith(".partial")));
    }
  }

  @Test
  void anEntryForAnotherModelEngineOrTextIsNotUsed() throws IOException {
    KvMeasureCache cache = cache();
    assertTrue(cache.store(entry(KEY)));
    assertTrue(cache.find(KEY).isPresent());
    KvMeasurement.Key[] others = {
      new KvMeasurement.Key(
          List.of("c".repeat(64)), KEY.engine(), KEY.textName(), KEY.textSha256()),
      new KvMeasurement.Key(
          KEY.modelSha256(), "strata-ref 0.2.0 (cpu)", KEY.textName(), KEY.textSha256()),
      new KvMeasurement.Key(KEY.modelSha256(), KEY.engine(), KEY.textName(), "d".repeat(64)),
      new KvMeasurement.Key(
          List.of("a".repeat(64), "e".repeat(64)), KEY.engine(), KEY.textName(), KEY.textSha256()),
    };
    for (KvMeasurement.Key k : others) {
      assertTrue(cache.find(k).isEmpty(), k.toString());
      // an entry copied to another key's file name says its own key: not used either
      Files.copy(cache.file(KEY), cache.file(k));
      assertTrue(cache.find(k).isEmpty(), "copied entry used for " + k);
    }
    assertEquals(List.of(), said);
  }

  @Test
  void aHostileCacheIsIgnoredWithOneLine() throws IOException {
    KvMeasureCache cache = cache();
    assertTrue(cache.store(entry(KEY)));
    Path f = cache.file(KEY);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
    assertTrue(cache.find(KEY).isEmpty());
    assertEquals(1, said.size(), said.toString());
    assertTrue(said.getFirst().startsWith("ignored the cached KV measurement: "), said.getFirst());
    assertTrue(said.getFirst().contains(f.toString()), said.getFirst());
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
    Files.setPosixFilePermissions(cache.dir(), PosixFilePermissions.fromString("rwxrwxrwx"));
    said.clear();
    assertTrue(cache.find(KEY).isEmpty(), "a folder others can write");
    assertEquals(1, said.size(), said.toString());
    // and nothing is written into it
    said.clear();
    assertTrue(!cache.store(entry(KEY)));
    assertTrue(said.getFirst().startsWith("the measurement was not cached: "), said.toString());
    Files.setPosixFilePermissions(cache.dir(), PosixFilePermissions.fromString("rwxr-xr-x"));
    said.clear();
    if ("root"
        .equals(System.getProperty("user.name"))) { // another user's file: only root can make one
      Files.setAttribute(f, "unix:uid", 12345);
      assertTrue(cache.find(KEY).isEmpty(), "another user's entry");
      assertEquals(1, said.size(), said.toString());
    }
    // a garbled entry of the user's own: one line, not used
    Files.setAttribute(f, "unix:uid", (int) Files.getAttribute(cache.dir(), "unix:uid"));
    Files.writeString(f, "format: something else\n");
    said.clear();
    assertTrue(cache.find(KEY).isEmpty());
    assertEquals(1, said.size(), said.toString());
  }

  @Test
  void ctrlCCachesNothing() throws IOException {
    KvMeasureCache cache = cache();
    KvMeasure m = measure(cache);
    // Ctrl-C at once: the trap's handler runs before the first eval
    KvMeasure.Outcome o =
        m.measure(
            GgufReader.readModel(MODEL),
            List.of(KvFormat.Q4_0),
            r -> {
              r.run();
              return () -> {};
            });
    assertInstanceOf(KvMeasure.Outcome.Cancelled.class, o, said.toString());
    if (!Files.exists(cache.dir())) {
      return; // nothing was written at all
    }
    try (Stream<Path> s = Files.list(cache.dir())) {
      assertTrue(
          s.noneMatch(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".partial")));
    }
  }

  @Test
  void aModelThatIsGoneOrRefusedIsOneLine() throws IOException {
    KvMeasure m = measure(cache());
    Path copy = Files.copy(MODEL, tmp.resolve("m.gguf"));
    GgufModel model = GgufReader.readModel(copy);
    Files.delete(copy);
    KvMeasure.Outcome.Failed gone =
        assertInstanceOf(
            KvMeasure.Outcome.Failed.class,
            m.measure(model, List.of(KvFormat.Q4_0), r -> () -> {}));
    assertEquals(ExitCodes.USAGE, gone.exitCode());
    assertTrue(
        gone.line().startsWith("cannot read the model: " + copy + ": no such file"), gone.line());
    // the seed-geometry synthetic model: strata-ref has no kernels for it and says so
    Path seed = DemoModel.write(tmp.resolve("seed"), 1).getFirst();
    KvMeasure.Outcome.Failed refused =
        assertInstanceOf(
            KvMeasure.Outcome.Failed.class,
            m.measure(GgufReader.readModel(seed), List.of(KvFormat.Q4_0), r -> () -> {}),
            said.toString());
    assertEquals(ExitCodes.PREFLIGHT, refused.exitCode(), refused.line());
    assertTrue(
        refused.line().startsWith("the engine could not measure this model: "), refused.line());
    assertEquals(1, refused.line().lines().count());
  }

  @Test
  void theCacheFolderIsKvQualityInTheUsersCacheFolder() {
    // the user's cache folder itself is ConfigPaths.cacheFolder's (ConfigPathsCacheTest)
    Map<String, String> env = Map.of("HOME", "/h", "XDG_CACHE_HOME", "/x");
    assertEquals(
        dev.strata.engine.write.ConfigPaths.cacheFolder(env, "Linux")
            .orElseThrow()
            .resolve("kv-quality"),
        KvMeasureCache.folder(env, "Linux"));
    assertEquals(null, KvMeasureCache.folder(Map.of(), "Linux"));
  }
}
