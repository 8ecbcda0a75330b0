package dev.strata.engine.model;

import dev.strata.engine.trust.OutputPlace;
import dev.strata.engine.trust.TrustedPath;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;

/**
 * Writes GGUF v3 files and gguf-split style split sets whose tensor data is zeros left as a hole:
 * the file length is set past the data, so a model of 20 GB on paper takes a few hundred KB on a
 * file system with sparse files; or, for small test models an engine computes, seeded random
 * weights ({@link TinyModel}). For tests and the demo model; never for real weights.
 */
public final class GgufWriter {
  /** GGUF's default data alignment (used unless general.alignment says otherwise). */
  public static final int DEFAULT_ALIGNMENT = 32;

  /** Largest file {@link #toBytes} builds in memory. */
  public static final int MAX_IN_MEMORY = 64 << 20;

  /**
   * A tensor to write: name, type and shape; its data is zeros.
   *
   * @param dims shape in ggml order (dims[0] is the row), 0 to 4 dimensions
   */
  public record Tensor(String name, GgmlType type, List<Long> dims) {
    public Tensor {
      dims = List.copyOf(dims);
      if (name.isEmpty() || dims.size() > GgufReader.MAX_DIMS) {
        throw new IllegalArgumentException("bad tensor " + name + " " + dims);
      }
      type.bytes(dims); // validates the shape against the type's block
    }

    public static Tensor of(String name, GgmlType type, long... dims) {
      return new Tensor(name, type, Arrays.stream(dims).boxed().toList());
    }

    public long bytes() {
      return type.bytes(dims);
    }
  }

  private GgufWriter() {}

  /**
   * Writes one file: header, then zero data as a hole. Replaces {@code file} atomically: the bytes
   * go to a new {@code FILE.partial} ({@link OutputPlace#createNew}: {@code CREATE_NEW}, never
   * through a symlink), renamed over {@code file} (a rename replaces a link at that name, never
   * writes through it). The caller checks the folder first ({@link OutputPlace#prepare}).
   *
   * @throws dev.strata.engine.trust.TrustRefused (exit 3) when something other than this user's own
   *     regular file is at the {@code .partial} name
   */
  public static void write(
      Path file, SequencedMap<String, GgufValue> metadata, List<Tensor> tensors)
      throws IOException {
    write(file, metadata, tensors, TrustedPath.Subject.output("GGUF file", null));
  }

  /** {@link #write(Path, SequencedMap, List)}, a refusal naming {@code subject}. */
  public static void write(
      Path file,
      SequencedMap<String, GgufValue> metadata,
      List<Tensor> tensors,
      TrustedPath.Subject subject)
      throws IOException {
    write(file, metadata, tensors, subject, null);
  }

  /**
   * {@link #write(Path, SequencedMap, List, TrustedPath.Subject)}, with each tensor's data drawn
   * from {@code seed} ({@link SeededData}) when it is not null, else zeros left as a hole.
   */
  static void write(
      Path file,
      SequencedMap<String, GgufValue> metadata,
      List<Tensor> tensors,
      TrustedPath.Subject subject,
      Long seed)
      throws IOException {
    int alignment = alignment(metadata);
    byte[] header = header(metadata, tensors, alignment);
    long length = Math.addExact(header.length, dataBytes(tensors, alignment));
    Path partial = file.resolveSibling(file.getFileName() + ".partial");
    FileChannel ch = OutputPlace.createNew(partial, subject); // ours from here on
    try {
      try (ch) {
        ByteBuffer buf = ByteBuffer.wrap(header);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        if (seed != null) {
          long at = header.length;
          for (Tensor t : tensors) {
            ByteBuffer data = ByteBuffer.wrap(SeededData.of(t, seed));
            while (data.hasRemaining()) {
              at += ch.write(data, at);
            }
            at = header.length + alignUp(at - header.length, alignment);
          }
        }
        if (length > header.length) {
          // the zeros stay a hole: one byte at the end sets the length
          ch.write(ByteBuffer.allocate(1), length - 1);
        }
      }
      Files.move(
          partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      // a full disk (or any failure) leaves no *.partial behind
      try {
        Files.deleteIfExists(partial);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** The whole file in memory, zeros included (small test files only). */
  public static byte[] toBytes(SequencedMap<String, GgufValue> metadata, List<Tensor> tensors) {
    int alignment = alignment(metadata);
    byte[] header = header(metadata, tensors, alignment);
    long length = header.length + dataBytes(tensors, alignment);
    if (length > MAX_IN_MEMORY) {
      throw new IllegalArgumentException("a " + length + "-byte file does not belong in memory");
    }
    return Arrays.copyOf(header, (int) length);
  }

  /**
   * Writes a split set as llama.cpp's gguf-split does: {@code PREFIX-0000k-of-0000n.gguf}, tensors
   * cut into {@code shards} runs of about equal bytes, every metadata entry in the first shard,
   * {@code split.no} (u16, from 0), {@code split.count} (u16) and {@code split.tensors.count} (i32)
   * in every shard.
   *
   * @return the shard paths, in order
   */
  public static List<Path> writeSplit(
      Path dir,
      String prefix,
      int shards,
      SequencedMap<String, GgufValue> metadata,
      List<Tensor> tensors)
      throws IOException {
    return writeSplit(
        dir,
        prefix,
        shards,
        metadata,
        tensors,
        TrustedPath.Subject.output("GGUF file", null),
        null);
  }

  /**
   * {@link #writeSplit(Path, String, int, SequencedMap, List)}, refusals naming {@code subject}
   * ({@link DemoModel}), with seeded tensor data when {@code seed} is not null (small test models
   * an engine computes: {@link TinyModel}), else zeros.
   */
  static List<Path> writeSplit(
      Path dir,
      String prefix,
      int shards,
      SequencedMap<String, GgufValue> metadata,
      List<Tensor> tensors,
      TrustedPath.Subject subject,
      Long seed)
      throws IOException {
    List<List<Tensor>> parts = partition(tensors, shards);
    List<Path> paths = new ArrayList<>(shards);
    for (int k = 0; k < shards; k++) {
      SequencedMap<String, GgufValue> meta = new LinkedHashMap<>();
      if (k == 0) {
        metadata.forEach(
            (key, v) -> {
              if (!key.startsWith("split.")) {
                meta.put(key, v);
              }
            });
      } else if (metadata.containsKey("general.alignment")) {
        // each file is read on its own: a non-default alignment must be in every shard
        meta.put("general.alignment", metadata.get("general.alignment"));
      }
      meta.put("split.no", GgufValue.u16(k));
      meta.put("split.count", GgufValue.u16(shards));
      meta.put("split.tensors.count", GgufValue.i32(tensors.size()));
      Path p = dir.resolve(ShardName.format(prefix, k + 1, shards));
      write(p, meta, parts.get(k), subject, seed);
      paths.add(p);
    }
    return paths;
  }

  /**
   * Cuts the tensors, in order, into {@code shards} non-empty runs of about equal bytes.
   *
   * @throws IllegalArgumentException when shards is not 1..tensors (or 1 for no tensors)
   */
  public static List<List<Tensor>> partition(List<Tensor> tensors, int shards) {
    if (shards < 1 || shards > 0xFFFF || (shards > tensors.size() && shards != 1)) {
      throw new IllegalArgumentException(
          "cannot cut " + tensors.size() + " tensors into " + shards + " shards");
    }
    double total = 0;
    for (Tensor t : tensors) {
      total += t.bytes();
    }
    List<List<Tensor>> parts = new ArrayList<>(shards);
    List<Tensor> current = new ArrayList<>();
    double done = 0;
    for (int i = 0; i < tensors.size(); i++) {
      int later = shards - 1 - parts.size(); // shards still to open after the current one
      boolean mustCut = !current.isEmpty() && tensors.size() - i == later;
      boolean wantCut =
          !current.isEmpty() && later > 0 && done >= total * (parts.size() + 1) / shards;
      if (mustCut || wantCut) {
        parts.add(current);
        current = new ArrayList<>();
      }
      current.add(tensors.get(i));
      done += tensors.get(i).bytes();
    }
    parts.add(current);
    while (parts.size() < shards) {
      parts.add(new ArrayList<>()); // only when there are no tensors at all
    }
    return parts;
  }

  private static int alignment(SequencedMap<String, GgufValue> metadata) {
    GgufValue v = metadata.get("general.alignment");
    if (v == null) {
      return DEFAULT_ALIGNMENT;
    }
    if (v instanceof GgufValue.IntValue i
        && i.type() == GgufValueType.UINT32
        && i.bits() > 0
        && i.bits() <= (1 << 30)
        && Long.bitCount(i.bits()) == 1) {
      return (int) i.bits();
    }
    throw new IllegalArgumentException("general.alignment must be a u32 power of two: " + v);
  }

  private static long dataBytes(List<Tensor> tensors, int alignment) {
    long sum = 0;
    for (Tensor t : tensors) {
      sum = Math.addExact(sum, alignUp(t.bytes(), alignment));
    }
    return sum;
  }

  private static byte[] header(
      SequencedMap<String, GgufValue> metadata, List<Tensor> tensors, int alignment) {
    Out out = new Out();
    out.bytes(new byte[] {'G', 'G', 'U', 'F'});
    out.u32(3);
    out.u64(tensors.size());
    out.u64(metadata.size());
    metadata.forEach(
        (key, v) -> {
          out.string(key);
          out.u32(v.type().id());
          out.value(v);
        });
    long offset = 0;
    for (Tensor t : tensors) {
      out.string(t.name());
      out.u32(t.dims().size());
      for (long d : t.dims()) {
        out.u64(d);
      }
      out.u32(t.type().id());
      out.u64(offset);
      offset += alignUp(t.bytes(), alignment);
    }
    while (out.size() % alignment != 0) {
      out.bytes(new byte[1]);
    }
    return out.toByteArray();
  }

  private static long alignUp(long v, int alignment) {
    return Math.addExact(v, alignment - 1) & -(long) alignment;
  }

  /** Little-endian output. */
  private static final class Out extends ByteArrayOutputStream {
    private final ByteBuffer scratch = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);

    void bytes(byte[] b) {
      write(b, 0, b.length);
    }

    void u32(long v) {
      scratch.clear();
      scratch.putInt((int) v);
      write(scratch.array(), 0, 4);
    }

    void u64(long v) {
      scratch.clear();
      scratch.putLong(v);
      write(scratch.array(), 0, 8);
    }

    void string(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      u64(b.length);
      bytes(b);
    }

    void value(GgufValue v) {
      switch (v) {
        case GgufValue.IntValue i -> {
          scratch.clear();
          scratch.putLong(i.bits());
          write(scratch.array(), 0, i.type().size());
        }
        case GgufValue.FloatValue f -> {
          scratch.clear();
          if (f.type() == GgufValueType.FLOAT32) {
            scratch.putFloat((float) f.value());
          } else {
            scratch.putDouble(f.value());
          }
          write(scratch.array(), 0, f.type().size());
        }
        case GgufValue.StringValue s -> string(s.value());
        case GgufValue.ArrayValue a -> {
          if (!a.complete()) {
            throw new IllegalArgumentException("cannot write an array read without its elements");
          }
          u32(a.elementType().id());
          u64(a.length());
          for (GgufValue e : a.elements()) {
            value(e);
          }
        }
      }
    }
  }
}
