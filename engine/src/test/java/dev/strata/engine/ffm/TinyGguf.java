package dev.strata.engine.ffm;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the seed geometry as GGUF v3 shards for the engine tests (docs/ENGINE-CONTRACT.md): 48
 * blocks, QSA every 4th (12 layers), 2 KV heads, head_dim 256, 512 small experts (10 used) in every
 * block (F16 256 × 16 per expert tensor: 24,576-byte arena slots). Each shard is extended to hold
 * its tensor data as a hole (sparse zeros), so the engine's arena can read the experts; on disk
 * each is a few KB.
 */
final class TinyGguf {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  private TinyGguf() {}

  /** Writes {@code stem-0000k-of-0000n.gguf} (or {@code stem.gguf}) and returns the first shard. */
  static Path seedModel(Path dir, String stem, int shards) throws IOException {
    List<Path> paths = new ArrayList<>();
    for (int k = 0; k < shards; k++) {
      String name =
          shards == 1 ? stem + ".gguf" : String.format("%s-%05d-of-%05d.gguf", stem, k + 1, shards);
      int b0 = k * 48 / shards;
      int b1 = (k + 1) * 48 / shards;
      TinyGguf g = new TinyGguf();
      List<Runnable> kvs = new ArrayList<>();
      kvs.add(() -> g.kvString("general.architecture", "qwen3next"));
      if (k == 0) {
        kvs.add(() -> g.kvU32("qwen3next.block_count", 48));
        kvs.add(() -> g.kvU32("qwen3next.context_length", 262144));
        kvs.add(() -> g.kvU32("qwen3next.embedding_length", 2048));
        kvs.add(() -> g.kvU32("qwen3next.attention.head_count_kv", 2));
        kvs.add(() -> g.kvU32("qwen3next.attention.key_length", 256));
        kvs.add(() -> g.kvU32("qwen3next.full_attention_interval", 4));
        kvs.add(() -> g.kvU32("qwen3next.expert_count", 512));
        kvs.add(() -> g.kvU32("qwen3next.expert_used_count", 10));
      }
      if (shards > 1) {
        final int no = k;
        kvs.add(() -> g.kvU16("split.no", no));
        kvs.add(() -> g.kvU16("split.count", shards));
        kvs.add(() -> g.kvI32("split.tensors.count", 0));
      }
      List<String> tensors = new ArrayList<>();
      List<long[]> dims = new ArrayList<>();
      for (int b = b0; b < b1; b++) {
        if ((b + 1) % 4 == 0) {
          tensors.add("blk." + b + ".attn_k.weight");
          dims.add(new long[] {2048, 512});
          tensors.add("blk." + b + ".attn_v.weight");
          dims.add(new long[] {2048, 512});
        } else {
          tensors.add("blk." + b + ".ssm_in.weight");
          dims.add(new long[] {2048, 512});
        }
        tensors.add("blk." + b + ".ffn_gate_exps.weight");
        dims.add(new long[] {256, 16, 512});
        tensors.add("blk." + b + ".ffn_up_exps.weight");
        dims.add(new long[] {256, 16, 512});
        tensors.add("blk." + b + ".ffn_down_exps.weight");
        dims.add(new long[] {16, 256, 512});
      }
      g.bytes("GGUF".getBytes(StandardCharsets.US_ASCII));
      g.u32(3);
      g.u64(tensors.size());
      g.u64(kvs.size());
      kvs.forEach(Runnable::run);
      long offset = 0;
      for (int i = 0; i < tensors.size(); i++) {
        long[] d = dims.get(i);
        g.string(tensors.get(i));
        g.u32(d.length);
        long n = 2; // F16
        for (long x : d) {
          g.u64(x);
          n *= x;
        }
        g.u32(1); // F16
        g.u64(offset);
        offset += (n + 31) / 32 * 32;
      }
      Path p = dir.resolve(name);
      Files.write(p, g.out.toByteArray());
      // the data section (GGUF's default alignment of 32) as a hole
      try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
        f.setLength((g.out.size() + 31L) / 32 * 32 + offset);
      }
      paths.add(p);
    }
    return paths.get(0);
  }

  private void bytes(byte[] b) {
    out.write(b, 0, b.length);
  }

  private void u32(long v) {
    bytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) v).array());
  }

  private void u64(long v) {
    bytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
  }

  private void string(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    u64(b.length);
    bytes(b);
  }

  private void kvU32(String key, long v) {
    string(key);
    u32(4);
    u32(v);
  }

  private void kvI32(String key, int v) {
    string(key);
    u32(5);
    u32(v);
  }

  private void kvU16(String key, int v) {
    string(key);
    u32(2);
    bytes(ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort((short) v).array());
  }

  private void kvString(String key, String v) {
    string(key);
    u32(8);
    string(v);
  }
}
