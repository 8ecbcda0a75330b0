package dev.strata.engine.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.model.GgufException.Kind;
import dev.strata.engine.model.ModelCorpus.Experts;
import dev.strata.engine.model.ModelCorpus.Spec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SequencedMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The geometry rules (docs/MODELS.md, docs/ENGINE-CONTRACT.md) at each boundary: the smallest and
 * largest value taken, the first refused, with its kind and words; MTP drafters counted inside and
 * after block_count; recurrent state at a kernel of 0; the layer lists in messages and in the
 * one-line summary. Headers are written with {@link ModelCorpus.Spec} (llama.cpp's tensor names),
 * tensor data as a hole.
 */
class GeometryEdgesTest {
  @TempDir Path dir;
  private int files;

  private static Spec llama(int blocks) {
    return new Spec("edge", "llama", "boundary test").dims(blocks, 64, 4, 2);
  }

  private Path write(
      Spec s, Consumer<SequencedMap<String, GgufValue>> meta, List<GgufWriter.Tensor> extra)
      throws IOException {
    SequencedMap<String, GgufValue> m = s.metadata();
    meta.accept(m);
    List<GgufWriter.Tensor> t = new ArrayList<>(s.tensors());
    t.addAll(extra);
    Path p = dir.resolve("m" + files++ + ".gguf");
    GgufWriter.write(p, m, t);
    return p;
  }

  private GgufModel read(Spec s, Consumer<SequencedMap<String, GgufValue>> meta)
      throws IOException {
    return GgufReader.readModel(write(s, meta, List.of()));
  }

  private GgufModel read(Spec s) throws IOException {
    return read(s, m -> {});
  }

  private void refused(
      Spec s,
      Consumer<SequencedMap<String, GgufValue>> meta,
      List<GgufWriter.Tensor> extra,
      Kind kind,
      String words)
      throws IOException {
    Path p = write(s, meta, extra);
    GgufException e = assertThrows(GgufException.class, () -> GgufReader.readModel(p));
    assertEquals(kind, e.kind(), e.getMessage());
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertEquals(p + ": " + words, e.getMessage());
  }

  private void refused(Spec s, Consumer<SequencedMap<String, GgufValue>> meta, Kind kind, String w)
      throws IOException {
    refused(s, meta, List.of(), kind, w);
  }

  /** llama(blocks) with one u32 key set: refused with that kind and words. */
  private void refusedWith(int blocks, String key, long value, Kind kind, String words)
      throws IOException {
    refused(llama(blocks), m -> m.put(key, GgufValue.u32(value)), kind, words);
  }

  @Test
  void aTrainedContextOfOneIsTakenZeroIsDamagedAndNoneIsNotAModel() throws IOException {
    assertEquals(1, read(llama(4).ctx(1)).geometry().trainedContext());
    refusedWith(
        4,
        "llama.context_length",
        0,
        Kind.INCONSISTENT,
        "llama.context_length is 0; the file is damaged");
    refused(
        llama(4),
        m -> m.remove("llama.context_length"),
        Kind.NOT_A_MODEL,
        "has no llama.context_length; not a model this toolkit can plan for");
  }

  @Test
  void everyExpertMayBeUsedPerTokenButNotOneMoreNorNone() throws IOException {
    ModelGeometry all = read(llama(4).moe(4, 4, 32, Experts.SEPARATE)).geometry();
    assertEquals(4, all.expertsUsed());
    assertEquals(4, all.experts());
    for (int used : new int[] {0, 5}) {
      refused(
          llama(4).moe(4, used, 32, Experts.SEPARATE),
          m -> {},
          Kind.INCONSISTENT,
          "llama.expert_used_count is "
              + used
              + " but it must be 1..4 (the expert count); the file is damaged");
    }
  }

  @Test
  void aTensorOfTheBlockAfterTheLastIsRefusedWithoutAnMtpKey() throws IOException {
    refused(
        llama(4),
        m -> {},
        List.of(GgufWriter.Tensor.of("blk.4.attn_norm.weight", GgmlType.F32, 64)),
        Kind.INCONSISTENT,
        "holds tensor blk.4.attn_norm.weight but llama.block_count is 4; the file is damaged");
  }

  private static Spec hybrid(int nextn, boolean pastBlockCount) {
    // Qwen3-Next's layout at 4 blocks: attention every 2nd block, SSM in the others, MoE in all
    return new Spec("hybrid", "qwen3next", "boundary test")
        .dims(4, 64, 4, 2)
        .headDim(64, 64)
        .moe(4, 2, 32, Experts.SEPARATE)
        .interval(2)
        .ssm(4, 128, 16, 2)
        .mtp(nextn, pastBlockCount);
  }

  @Test
  void anMtpBlockIsTheDrafterWhetherBlockCountHoldsItOrNot() throws IOException {
    for (boolean past : new boolean[] {false, true}) {
      ModelGeometry g = read(hybrid(1, past)).geometry();
      assertEquals(4, g.blocks(), "past " + past);
      assertEquals(List.of(1, 3), g.qsaLayers());
      assertEquals(1, g.drafterBlocks());
      assertTrue(g.hasDrafter());
      assertEquals(List.of(4), g.drafterKvLayers(), "the drafter's attention has a KV pool");
      // blk.4: attn_norm, q, k, v, output, nextn.eh_proj, 3 norms, ffn_norm, router, 3 experts
      assertEquals(89_344, g.drafterBytes());
    }
    // the main blocks' experts only: 4 layers × 4 experts × (gate, up, down of 64×32 Q8_0)
    assertEquals(4L * 4 * 3 * (64 * 32 / 32 * 34), read(hybrid(1, false)).expertTensorBytes());
    ModelGeometry none = read(hybrid(0, false)).geometry();
    assertFalse(none.hasDrafter());
    assertEquals(0, none.drafterBlocks());
    assertEquals(List.of(), none.drafterKvLayers());
    assertEquals(0, none.drafterBytes());
  }

  @Test
  void mtpLayersUpToBlockCountMinusOneAreTakenAndAllBlocksAreRefused() throws IOException {
    // nextn 3 of 4 blocks: one main block, three drafter blocks
    ModelGeometry g =
        read(llama(4), m -> m.put("llama." + ArchTable.NEXTN_KEY, GgufValue.u32(3))).geometry();
    assertEquals(1, g.blocks());
    assertEquals(3, g.drafterBlocks());
    assertEquals(List.of(1, 2, 3), g.drafterKvLayers());
    refused(
        llama(4),
        m -> m.put("llama." + ArchTable.NEXTN_KEY, GgufValue.u32(4)),
        Kind.INCONSISTENT,
        "llama.nextn_predict_layers is 4 but llama.block_count is only 4; the file is damaged");
  }

  @Test
  void aDrafterBlockWithoutAttentionTensorsHasNoKvLayer() throws IOException {
    Spec s = llama(4);
    SequencedMap<String, GgufValue> m = s.metadata();
    m.put("llama." + ArchTable.NEXTN_KEY, GgufValue.u32(1));
    List<GgufWriter.Tensor> t = new ArrayList<>(s.tensors());
    t.removeIf(x -> x.name().startsWith("blk.3.attn_"));
    Path p = dir.resolve("no-attention-drafter.gguf");
    GgufWriter.write(p, m, t);
    ModelGeometry g = GgufReader.readModel(p).geometry();
    assertEquals(3, g.blocks());
    assertEquals(1, g.drafterBlocks());
    assertEquals(List.of(), g.drafterKvLayers());
  }

  @Test
  void aZeroKvHeadCountIsNotAModelAndAnAbsentOneMeansOnePerHead() throws IOException {
    refusedWith(
        4,
        "llama.attention.head_count_kv",
        0,
        Kind.INCONSISTENT,
        "llama.attention.head_count_kv is 0 but the model has attention layers, which need at"
            + " least one KV head; the file is damaged");
    assertEquals(
        4, read(llama(4), m -> m.remove("llama.attention.head_count_kv")).geometry().kvHeads());
  }

  @Test
  void recurrentStateAtAKernelOfZeroOrOneCachesNoColumn() throws IOException {
    // LFM2 short conv: 4 bytes × embedding_length × (L_cache - 1) columns, none below 2
    for (long lCache : new long[] {0, 1, 2, 3}) {
      Spec lfm =
          new Spec("lfm", "lfm2", "boundary test")
              .dims(4, 64, 4, 2)
              .attentionAt(n -> n == 1 || n == 3, true)
              .shortConv(lCache);
      ModelGeometry g = read(lfm).geometry();
      assertEquals(2, g.recurrentLayers());
      assertEquals(4 * 64 * Math.max(0, lCache - 1), g.stateBytesPerLayer(), "L_cache " + lCache);
    }
    // SSM (d_conv, d_inner 128, d_state 16, n_group 2): 4 × ((d_conv - 1) × (128 + 2 × 2 × 16)
    // + 16 × 128); d_conv 0 caches no conv column
    for (long conv : new long[] {0, 1, 4}) {
      Spec ssm =
          new Spec("ssm", "qwen3next", "boundary test")
              .dims(4, 64, 4, 2)
              .headDim(64, 64)
              .interval(2)
              .ssm(conv, 128, 16, 2);
      assertEquals(
          4 * (Math.max(0, conv - 1) * (128 + 64) + 16 * 128),
          read(ssm).geometry().stateBytesPerLayer(),
          "d_conv " + conv);
    }
  }

  @Test
  void theIntervalRuleCountsBlocksFromOneUpToTheLast() throws IOException {
    // 7 blocks, interval 4: attention only in block 3 (the 8th block would be the next)
    Spec s =
        new Spec("seven", "qwen3next", "boundary test")
            .dims(7, 64, 4, 2)
            .headDim(64, 64)
            .interval(4)
            .ssm(4, 128, 16, 2);
    assertEquals(List.of(3), read(s).geometry().qsaLayers());
    refused(
        s,
        m -> m.put("qwen3next.full_attention_interval", GgufValue.u32(0)),
        Kind.INCONSISTENT,
        "qwen3next.full_attention_interval is 0; the file is damaged");
    // llama's loader reads no interval: the key changes nothing there
    assertEquals(
        List.of(0, 1, 2, 3),
        read(llama(4), m -> m.put("llama.full_attention_interval", GgufValue.u32(0)))
            .geometry()
            .qsaLayers());
  }

  /** An architecture the table does not know: the generic rule, attention where the tensors are. */
  private static Spec generic(int blocks) {
    return new Spec("edge", "custom", "boundary test").dims(blocks, 64, 4, 2);
  }

  @Test
  void intervalMessagesListUpToSixLayersAndShortenLongerLists() throws IOException {
    String but = " but blk.N.attn_k.weight or blk.N.attn_qkv.weight exists for ";
    refused(
        generic(4),
        m -> m.put("custom.full_attention_interval", GgufValue.u32(2)),
        Kind.INCONSISTENT,
        "custom.full_attention_interval 2 means attention layers [1, 3]"
            + but
            + "[0, 1, 2, 3]; the model is damaged");
    refused(
        generic(24),
        m -> m.put("custom.full_attention_interval", GgufValue.u32(4)),
        Kind.INCONSISTENT,
        "custom.full_attention_interval 4 means attention layers [3, 7, 11, 15, 19, 23]"
            + but
            + "[0, 1, 2, …, 23]; the model is damaged");
    refused(
        generic(28),
        m -> m.put("custom.full_attention_interval", GgufValue.u32(4)),
        Kind.INCONSISTENT,
        "custom.full_attention_interval 4 means attention layers [3, 7, 11, …, 27]"
            + but
            + "[0, 1, 2, …, 27]; the model is damaged");
    refused(
        generic(4).attentionAt(n -> false, false),
        m -> m.put("custom.full_attention_interval", GgufValue.u32(2)),
        Kind.INCONSISTENT,
        "custom.full_attention_interval 2 means attention layers [1, 3]"
            + but
            + "none; the model is damaged");
  }

  private static final String NO_KEY_LENGTH =
      "has attention layers but no llama.attention.key_length (nor embedding_length and"
          + " head_count to derive it); not a model this toolkit can plan for";

  @Test
  void headSizesFromOneTo65536AreTakenZeroAndOneMoreAreRefused() throws IOException {
    ModelGeometry one =
        read(
                llama(4),
                m -> {
                  m.put("llama.attention.key_length", GgufValue.u32(1));
                  m.put("llama.attention.value_length", GgufValue.u32(1));
                })
            .geometry();
    assertEquals(1, one.headDim());
    assertEquals(1, one.headDimV());
    ModelGeometry max =
        read(llama(4), m -> m.put("llama.attention.key_length", GgufValue.u32(65_536))).geometry();
    assertEquals(65_536, max.headDim());
    // no key_length: embedding_length / head_count, as llama.cpp derives it
    assertEquals(16, read(llama(4)).geometry().headDim());
    // issue 28: a key that is there with the value 0 is a bad value, not a missing key
    refusedWith(
        4,
        "llama.attention.key_length",
        0,
        Kind.INCONSISTENT,
        "llama.attention.key_length is 0, but an attention head needs at least one value; the"
            + " file is damaged");
    refusedWith(
        4,
        "llama.attention.key_length",
        65_537,
        Kind.ABSURD_COUNT,
        "llama.attention.key_length is 65537 (limit 65536); the file is damaged");
    // nothing to derive it from: no heads, or a width the heads do not divide
    refusedWith(4, "llama.attention.head_count", 0, Kind.NOT_A_MODEL, NO_KEY_LENGTH);
    refusedWith(4, "llama.attention.head_count", 3, Kind.NOT_A_MODEL, NO_KEY_LENGTH);
  }

  @Test
  void blockCountsFromOneTo65536AreTakenZeroIsDamagedAndOneMoreIsAbsurd() throws IOException {
    assertEquals(1, read(llama(1)).geometry().blocks());
    assertEquals(
        65_536,
        read(generic(1), m -> m.put("custom.block_count", GgufValue.u32(65_536)))
            .geometry()
            .blocks());
    refusedWith(
        1,
        "llama.block_count",
        0,
        Kind.INCONSISTENT,
        "llama.block_count is 0 (expected 1..65536); the file is damaged");
    refusedWith(
        1,
        "llama.block_count",
        65_537,
        Kind.ABSURD_COUNT,
        "llama.block_count is 65537 (expected 1..65536); the file is damaged");
  }

  private static GgufValue perBlock(long... v) {
    List<GgufValue> l = new ArrayList<>();
    for (long x : v) {
      l.add(GgufValue.u32(x));
    }
    return GgufValue.array(GgufValueType.UINT32, l);
  }

  @Test
  void perLayerKvHeadsFromOneTo65536AreTakenAndAttentionLayersMustAgree() throws IOException {
    // lfm2: a block given 0 KV heads is recurrent (llama.cpp's lfm2 loader)
    String key = "lfm2.attention.head_count_kv";
    Spec alternate =
        new Spec("edge", "lfm2", "boundary test")
            .dims(4, 64, 4, 2)
            .attentionAt(n -> n % 2 == 1, true);
    assertEquals(1, read(alternate, m -> m.put(key, perBlock(0, 1, 0, 1))).geometry().kvHeads());
    assertEquals(
        65_536,
        read(alternate, m -> m.put(key, perBlock(0, 65_536, 0, 65_536))).geometry().kvHeads());
    String plans = "; this toolkit plans one KV shape for every attention layer";
    refused(
        alternate,
        m -> m.put(key, perBlock(0, 65_537, 0, 65_537)),
        Kind.INCONSISTENT,
        key + " gives attention layer 1 the value 65537" + plans);
    refused(
        alternate,
        m -> m.put(key, perBlock(0, 0, 0, 2)),
        Kind.INCONSISTENT,
        key
            + " gives block 1 0 KV heads (recurrent layers) but it holds blk.N.attn_k.weight or"
            + " blk.N.attn_qkv.weight; the model is damaged");
    refused(
        alternate,
        m -> m.put(key, perBlock(0, 2, 0, 4)),
        Kind.INCONSISTENT,
        key + " gives attention layer 3 the value 4 but another attention layer 2" + plans);
    // the same per-layer rule on an architecture the table does not know: the tensors decide
    String generic = "custom.attention.head_count_kv";
    refused(
        generic(4).attentionAt(n -> n % 2 == 1, true),
        m -> m.put(generic, perBlock(0, 0, 0, 2)),
        Kind.INCONSISTENT,
        generic + " gives attention layer 1 the value 0" + plans);
  }

  @Test
  void aPerLayerArrayNeedNotReachAnMtpBlockCountedAfterBlockCount() throws IOException {
    Spec s = llama(4).attentionAt(n -> true, true).mtp(1, true);
    ModelGeometry g = read(s).geometry();
    assertEquals(2, g.kvHeads());
    assertEquals(List.of(4), g.drafterKvLayers());
  }

  @Test
  void theArchitectureMustBeANameString() throws IOException {
    refusedWith(
        4,
        "general.architecture",
        7,
        Kind.INCONSISTENT,
        "general.architecture is UINT32 7, not an architecture name; the file is damaged");
    refused(
        llama(4),
        m -> m.put("general.architecture", GgufValue.string("llama 3")),
        Kind.INCONSISTENT,
        "general.architecture is \"llama 3\", not an architecture name; the file is damaged");
  }

  @Test
  void legacyExpertsAreCountedPerExpertAndTheirIndexBoundedByTheCount() throws IOException {
    Spec mixtral = llama(2).moe(4, 2, 64, Experts.LEGACY);
    GgufModel m = read(mixtral);
    // one expert: gate 64×64, up 64×64, down 64×64 in Q8_0 (34 bytes per 32)
    assertEquals(3 * (64 * 64 / 32 * 34), m.geometry().expertBytes());
    assertEquals(2, m.geometry().moeLayers());
    assertEquals(2L * 4 * 3 * (64 * 64 / 32 * 34), m.expertTensorBytes());
    refused(
        mixtral,
        x -> {},
        List.of(GgufWriter.Tensor.of("blk.0.ffn_gate.4.weight", GgmlType.Q8_0, 64, 64)),
        Kind.INCONSISTENT,
        "holds tensor blk.0.ffn_gate.4.weight but llama.expert_count is 4; the file is damaged");
    // without an expert count, a tensor of that name is dense
    GgufModel dense =
        GgufReader.readModel(
            write(
                llama(2),
                x -> {},
                List.of(GgufWriter.Tensor.of("blk.0.ffn_gate.0.weight", GgmlType.Q8_0, 64, 64))));
    assertEquals(0, dense.geometry().moeLayers());
    assertEquals(dense.tensorBytes(), dense.geometry().denseBytes());
  }

  @Test
  void aLegacyExpertMissingOneOfItsThreeTensorsIsIncomplete() throws IOException {
    Spec mixtral = llama(2).moe(4, 2, 64, Experts.LEGACY);
    SequencedMap<String, GgufValue> m = mixtral.metadata();
    List<GgufWriter.Tensor> t = new ArrayList<>(mixtral.tensors());
    t.removeIf(x -> x.name().equals("blk.1.ffn_up.2.weight"));
    Path p = dir.resolve("incomplete.gguf");
    GgufWriter.write(p, m, t);
    GgufException e = assertThrows(GgufException.class, () -> GgufReader.readModel(p));
    assertEquals(Kind.INCONSISTENT, e.kind());
    assertEquals(
        p + ": block 1 has expert tensors but no blk.1.ffn_up.2.weight; the model is incomplete",
        e.getMessage());
  }

  @Test
  void theSummaryNamesEachPartTheModelHas() throws IOException {
    Path tiny = dir.resolve("tiny.gguf");
    GgufWriter.write(tiny, TinyHybridModel.metadata(), TinyHybridModel.tensors());
    GgufModel t = GgufReader.readModel(tiny);
    assertEquals(tiny, t.firstShard());
    // key_length 64, no value_length: V is embedding_length / head_count = 64 / 4
    // dense: token_embd and output F16 64×16 (2,048 B each), 4 attn_norm F32 (256 B), q/k/v Q8_0
    // in blocks 1 and 3 (17,408 + 8,704 + 8,704 B), ssm_in Q4_0 64×128 in blocks 0 and 2 (4,608
    // B): 83,968 B = 82.0 KiB
    assertEquals(
        "tiny: 4 blocks, 2 QSA layers [1, 3], 2 KV heads × head_dim 64 (V 16), 2 experts (1 per"
            + " token) in 4 layers, expert slot 13,568 B, dense 82.0 KiB, trained context 4,096",
        t.summary());
    assertEquals(t.tensorBytes() - 83_968, t.expertTensorBytes());
    assertEquals(4L * 2 * 13_568, t.expertTensorBytes());

    // Gemma 3's pattern at 8 blocks: blocks 0-4 and 6-7 slide, 5 attends over everything
    Spec gemma =
        new Spec("gemma", "gemma3", "boundary test").dims(8, 64, 4, 2).headDim(32, 16).window(512);
    // dense: token_embd and output Q8_0 64×32000 (2,176,000 B each), output_norm 256 B, per block
    // 2 norms (512 B), q 64×128, k 64×64, v 64×32, out 64×64 (8,704 + 4,352 + 2,176 + 4,352 B),
    // gate/up/down 64×1024 (3 × 69,632 B): 6,184,192 B = 5.9 MiB
    assertEquals(
        "gemma3: 8 blocks, 8 QSA layers [0, 1, 2, …, 7], 2 KV heads × head_dim 32 (V 16), 7"
            + " sliding-window layers (window 512), dense 5.9 MiB, trained context 131,072",
        read(gemma).summary());

    // six layers are listed in full, seven are shortened (above)
    assertTrue(
        read(llama(6)).summary().startsWith("llama: 6 blocks, 6 QSA layers [0, 1, 2, 3, 4, 5], "));

    String hybrid = read(hybrid(1, false)).summary();
    assertTrue(
        hybrid.startsWith(
            "qwen3next: 4 blocks, 2 QSA layers [1, 3], 2 KV heads × head_dim 64, 2 recurrent"
                + " layers (state 10,496 B each), MTP drafter: 1 block(s), 87.3 KiB, 4 experts (2"
                + " per token) in 4 layers, expert slot "),
        hybrid);
  }
}
