package dev.strata.engine.model;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Little-endian GGUF bytes written field by field, independently of {@link GgufWriter}, so a test
 * can lay out a header by hand (docs/GGUF.md, llama.cpp's gguf.cpp: magic, u32 version, u64 tensor
 * count, u64 metadata count, then entries: u64 key length, key, u32 type, value) and note where a
 * field starts ({@link #at()}).
 */
final class GgufBytes {
  static final int TYPE_UINT8 = 0;
  static final int TYPE_UINT16 = 2;
  static final int TYPE_UINT32 = 4;
  static final int TYPE_STRING = 8;
  static final int TYPE_ARRAY = 9;
  static final int GGML_F32 = 0;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  GgufBytes u8(int v) {
    out.write(v);
    return this;
  }

  GgufBytes u16(int v) {
    out.writeBytes(
        ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort((short) v).array());
    return this;
  }

  GgufBytes u32(long v) {
    out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) v).array());
    return this;
  }

  GgufBytes u64(long v) {
    out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
    return this;
  }

  GgufBytes str(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    u64(b.length);
    out.writeBytes(b);
    return this;
  }

  GgufBytes raw(byte[] b) {
    out.writeBytes(b);
    return this;
  }

  GgufBytes zeros(int n) {
    out.writeBytes(new byte[n]);
    return this;
  }

  /** Zeros up to the next multiple of {@code alignment}: where the tensor data starts. */
  GgufBytes align(int alignment) {
    while (out.size() % alignment != 0) {
      out.write(0);
    }
    return this;
  }

  /** The offset the next field is written at. */
  int at() {
    return out.size();
  }

  /** Magic "GGUF", version 3 and the two counts. */
  static GgufBytes header(long tensors, long kvs) {
    GgufBytes b = new GgufBytes();
    b.out.writeBytes(new byte[] {'G', 'G', 'U', 'F'});
    return b.u32(3).u64(tensors).u64(kvs);
  }

  byte[] bytes() {
    return out.toByteArray();
  }
}
