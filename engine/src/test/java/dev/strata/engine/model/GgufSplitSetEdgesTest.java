package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.model.GgufException.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether files are one model (docs/ENGINE-CONTRACT.md, "Reading"), case by case, word for word:
 * the split keys gguf-split writes into every shard ({@code split.no}, {@code split.count}, {@code
 * split.tensors.count}), the odd shard out named even when it is the first, a key two shards give
 * different values, a set missing one shard or several, a folder of five or six models.
 */
class GgufSplitSetEdgesTest {
  @TempDir Path dir;

  /**
   * TinyHybridModel as gguf-split writes it in 3 shards; its headers, with {@code change} applied.
   */
  private List<GgufFile> three(List<Consumer<SequencedMap<String, GgufValue>>> changes)
      throws IOException {
    return split("m", changes);
  }

  /**
   * TinyHybridModel as gguf-split writes it in one shard per change; the headers named "shard1"…,
   * each with its change applied.
   */
  private List<GgufFile> split(
      String prefix, List<Consumer<SequencedMap<String, GgufValue>>> changes) throws IOException {
    int n = changes.size();
    List<Path> paths =
        GgufWriter.writeSplit(
            dir, prefix, n, TinyHybridModel.metadata(), TinyHybridModel.tensors());
    List<GgufFile> files = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      GgufFile f = GgufReader.readFile(paths.get(k));
      SequencedMap<String, GgufValue> m = new LinkedHashMap<>(f.metadata());
      changes.get(k).accept(m);
      files.add(
          new GgufFile(
              "shard" + (k + 1),
              f.version(),
              f.size(),
              f.alignment(),
              f.dataOffset(),
              m,
              f.tensors()));
    }
    return files;
  }

  private static Consumer<SequencedMap<String, GgufValue>> same() {
    return m -> {};
  }

  private static Consumer<SequencedMap<String, GgufValue>> put(String key, GgufValue v) {
    return m -> m.put(key, v);
  }

  private static Consumer<SequencedMap<String, GgufValue>> drop(String... keys) {
    return m -> {
      for (String k : keys) {
        m.remove(k);
      }
    };
  }

  private static void says(List<GgufFile> files, Kind kind, String message) {
    GgufException e = assertThrows(GgufException.class, () -> GgufSplitCheck.checkSet(files, true));
    assertEquals(kind, e.kind(), e.getMessage());
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertEquals(message, e.getMessage());
  }

  /**
   * Reading {@code p} as a model is refused as {@code kind}, with {@code message} word for word.
   */
  private static void readSays(Path p, Kind kind, String message) {
    GgufException e = assertThrows(GgufException.class, () -> GgufReader.readModel(p));
    assertEquals(kind, e.kind(), e.getMessage());
    assertEquals(message, e.getMessage());
  }

  private static final String COUNT = "split.tensors.count";
  private static final int TENSORS = TinyHybridModel.tensors().size();

  @Test
  void theTensorCountMostShardsGiveIsTheSetsAndTheOddShardIsNamed() throws IOException {
    // the first shard is the odd one out
    says(
        three(List.of(put(COUNT, GgufValue.i32(99)), same(), same())),
        Kind.FOREIGN_SHARD,
        "shard1: split.tensors.count is INT32 99 but the other shards say INT32 "
            + TENSORS
            + ": a shard of another model; download shard 1 again");
    // the first shard lacks the key: the first value seen among the others is the set's
    says(
        three(List.of(drop(COUNT), same(), put(COUNT, GgufValue.i32(99)))),
        Kind.FOREIGN_SHARD,
        "shard1: split.tensors.count is absent but the other shards say INT32 "
            + TENSORS
            + ": a shard of another model; download shard 1 again");
  }

  @Test
  void aTieBetweenTwoShardsKeepsTheFirstShardsValue() throws IOException {
    says(
        split("two", List.of(same(), put(COUNT, GgufValue.i32(99)))),
        Kind.FOREIGN_SHARD,
        "shard2: split.tensors.count is INT32 99 but the other shards say INT32 "
            + TENSORS
            + ": a shard of another model; download shard 2 again");
  }

  @Test
  void aSetWithoutATensorCountIsReadAndAWrongTotalIsRefused() throws IOException {
    GgufSplitCheck.checkSet(three(List.of(drop(COUNT), drop(COUNT), drop(COUNT))), true);
    GgufValue wrong = GgufValue.i32(99);
    says(
        three(List.of(put(COUNT, wrong), put(COUNT, wrong), put(COUNT, wrong))),
        Kind.INCONSISTENT,
        "shard1: split.tensors.count is INT32 99 but the 3 shards hold "
            + TENSORS
            + " tensors; download the set again");
  }

  @Test
  void aKeyTwoShardsGiveDifferentValuesNamesTheLaterShard() throws IOException {
    says(
        three(List.of(same(), same(), put("tiny.block_count", GgufValue.u32(5)))),
        Kind.FOREIGN_SHARD,
        "shard3: tiny.block_count is UINT32 5 but the first shard's is UINT32 4: a shard of"
            + " another model; download shard 3 again");
  }

  @Test
  void aShardWithoutSplitKeysOrOfAnotherCountIsForeign() throws IOException {
    says(
        three(List.of(same(), drop("split.count", "split.no"), same())),
        Kind.FOREIGN_SHARD,
        "shard2: has no split.count/split.no: it is not a shard of this split model; download"
            + " shard 2 again");
    says(
        three(List.of(same(), put("split.count", GgufValue.u16(4)), same())),
        Kind.FOREIGN_SHARD,
        "shard2: says it is one of 4 shards but the set has 3: a shard of another model or split;"
            + " download shard 2 again");
  }

  @Test
  void aShardThatSaysItIsOneOfZeroIsNotTakenForOneWithoutSplitKeys() throws IOException {
    says(
        three(List.of(same(), put("split.count", GgufValue.u16(0)), same())),
        Kind.FOREIGN_SHARD,
        "shard2: says it is one of 0 shards but the set has 3: a shard of another model or split;"
            + " download shard 2 again");
  }

  @Test
  void aTieBetweenTwoPairsKeepsThePairTheFirstShardIsIn() throws IOException {
    GgufValue wrong = GgufValue.i32(99);
    List<GgufFile> files =
        split("four", List.of(put(COUNT, wrong), same(), same(), put(COUNT, wrong)));
    // 99 (shards 1 and 4) against the true count (shards 2 and 3): the first shard's pair wins,
    // so shard 2 is the first odd one out
    says(
        files,
        Kind.FOREIGN_SHARD,
        "shard2: split.tensors.count is INT32 "
            + TENSORS
            + " but the other shards say INT32 99: a shard of another model; download shard 2"
            + " again");
  }

  @Test
  void aShardNamedOneOfOneNeedsNoSplitKeys() throws IOException {
    Path single = dir.resolve("m-00001-of-00001.gguf");
    GgufWriter.write(single, TinyHybridModel.metadata(), TinyHybridModel.tensors());
    assertEquals(1, GgufReader.readModel(single).geometry().shardCount());
  }

  @Test
  void aFileNamedAsNoShardMaySayItIsTheOnlyShardButNotOneOfTwo() throws IOException {
    Path one = firstOf(dir.resolve("one.gguf"), 1);
    assertEquals(4, GgufReader.readModel(one).geometry().blocks());
    Path two = firstOf(dir.resolve("two.gguf"), 2);
    readSays(
        two,
        Kind.INCONSISTENT,
        two
            + ": says it is shard 1 of 2 but its name lacks -0000k-of-0000n.gguf; restore the"
            + " original file names");
  }

  /** TinyHybridModel written to {@code p} saying it is shard 1 of {@code count}. */
  private static Path firstOf(Path p, int count) throws IOException {
    return TinyHybridModel.writeWith(
        p, Map.entry("split.no", GgufValue.u16(0)), Map.entry("split.count", GgufValue.u16(count)));
  }

  @Test
  void aSetMissingShardsNamesTheFirstAndCountsThemWhenSeveral() throws IOException {
    for (int k : new int[] {1, 3, 4}) {
      Files.createFile(dir.resolve("m-0000" + k + "-of-00004.gguf"));
    }
    Path first = dir.resolve("m-00001-of-00004.gguf");
    readSays(
        first,
        Kind.MISSING_SHARD,
        dir.resolve("m-00002-of-00004.gguf")
            + ": missing: shard 2 of 4; download it next to the other shards");
    Files.delete(dir.resolve("m-00004-of-00004.gguf"));
    readSays(
        first,
        Kind.MISSING_SHARD,
        dir.resolve("m-00002-of-00004.gguf")
            + ": missing: shard 2 of 4 (2 shards missing in all); download it next to the other"
            + " shards");
  }

  @Test
  void aFolderOfFiveModelsListsThemAllAndOfSixListsFive() throws IOException {
    for (String n : List.of("a", "b", "c", "d", "e")) {
      Files.createFile(dir.resolve(n + ".gguf"));
    }
    readSays(
        dir,
        Kind.NOT_A_MODEL,
        dir
            + ": holds 5 models (a.gguf, b.gguf, c.gguf, d.gguf, e.gguf); pass the first shard of"
            + " the one to use");
    Files.createFile(dir.resolve("f.gguf"));
    readSays(
        dir,
        Kind.NOT_A_MODEL,
        dir
            + ": holds 6 models (a.gguf, b.gguf, c.gguf, d.gguf, e.gguf, …); pass the first shard"
            + " of the one to use");
  }

  @Test
  void aMissingFileIsNotTakenForAnotherFilesByteSplitParts() throws IOException {
    Files.createFile(dir.resolve("other.gguf.part1of2"));
    Path model = dir.resolve("model.gguf");
    readSays(
        model,
        Kind.NOT_FOUND,
        model
            + ": no such file; pass the model's .gguf file (the first shard of a split model) or"
            + " its folder");
  }
}
