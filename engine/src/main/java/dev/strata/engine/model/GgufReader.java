package dev.strata.engine.model;

import dev.strata.engine.FileKind;
import dev.strata.engine.IoReason;
import dev.strata.engine.model.GgufException.Kind;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the metadata and tensor infos of a GGUF model (v2 or v3, little-endian) — never the tensor
 * data — from one file, a folder, or the shards of a split set, and derives its {@link
 * ModelGeometry}.
 *
 * <p>The files are untrusted: every count and length is checked against a fixed limit and against
 * the bytes left in the file before anything is allocated or looped over, so a hostile file costs
 * at most memory proportional to its own header and time linear in it. Every failure is a {@link
 * GgufException}.
 */
public final class GgufReader {
  /**
   * Longest string (key, value, tensor name, array element): 16 MiB. The largest real chat
   * templates are a few hundred KiB; the bound stays so a hostile length cannot allocate freely.
   */
  public static final int MAX_STRING = 16 << 20;

  /** Most elements of one metadata array: 16 Mi. */
  public static final long MAX_ARRAY = 16L << 20;

  /** Most tensors of one file: 1 Mi (real models have a few thousand). */
  public static final long MAX_TENSORS = 1L << 20;

  /** Most metadata entries of one file: 1 Mi. */
  public static final long MAX_KVS = 1L << 20;

  /** Most dimensions of a tensor (ggml's GGML_MAX_DIMS). */
  public static final int MAX_DIMS = 4;

  /** Most shards of a split set. */
  public static final int MAX_SHARDS = 1024;

  /** Arrays up to this length keep their elements; longer ones (vocabularies) are skipped. */
  public static final int KEEP_ARRAY = 4096;

  /**
   * Most array elements kept in memory per file: past it, arrays are skipped like long ones, so a
   * file of many short arrays cannot make the reader hold many small objects per byte it has.
   */
  public static final long MAX_KEPT_ELEMENTS = 1L << 20;

  /** Most string bytes kept in memory per file (keys, values, tensor names): 64 MiB. */
  public static final long MAX_KEPT_BYTES = 64L << 20;

  /** Most .gguf entries a folder may hold before it is not taken for a model folder. */
  public static final int MAX_FOLDER_FILES = 10_000;

  private GgufReader() {}

  /**
   * Reads a whole model: {@code input} is a single .gguf file, any shard of a split set ({@code
   * NAME-0000k-of-0000n.gguf}, normally the first), or a folder holding exactly one model. Checks
   * that a split set is complete and consistent, then derives the geometry.
   */
  public static GgufModel readModel(Path input) {
    List<Path> paths = GgufSplitSet.resolve(input);
    List<GgufFile> files = new ArrayList<>(paths.size());
    for (Path p : paths) {
      files.add(readFile(p));
    }
    boolean split = ShardName.parse(paths.getFirst().getFileName().toString()) != null;
    GgufSplitCheck.checkSet(files, split);
    ModelGeometry geometry = GeometryRules.derive(files);
    List<GgufModel.Shard> shards = new ArrayList<>(files.size());
    for (int i = 0; i < files.size(); i++) {
      GgufFile f = files.get(i);
      shards.add(new GgufModel.Shard(paths.get(i), f.size(), f.tensors().size()));
    }
    long tensorBytes = 0;
    for (GgufFile f : files) {
      for (GgufTensor t : f.tensors()) {
        tensorBytes = GgufSplitCheck.addOrAbsurd(tensorBytes, t.bytes(), f.file());
      }
    }
    return new GgufModel(geometry, shards, tensorBytes);
  }

  /** Reads the header of one file. */
  public static GgufFile readFile(Path file) {
    String shown = file.toString();
    String kind = FileKind.isNotRegular(file);
    if (kind != null) {
      // never opened: opening a FIFO for reading blocks until someone writes to it
      throw new GgufException(Kind.NOT_A_MODEL, shown, kind + "; pass the model's .gguf file");
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return read(ch, shown);
    } catch (NoSuchFileException e) {
      throw new GgufException(Kind.NOT_FOUND, shown, "no such file");
    } catch (AccessDeniedException e) {
      throw new GgufException(Kind.IO, shown, "permission denied; make the file readable");
    } catch (IOException e) {
      throw new GgufException(Kind.IO, shown, "cannot read (" + IoReason.of(e) + ")", e);
    }
  }

  /**
   * Reads the header of a GGUF held by any channel (a file, or bytes in memory for tests).
   *
   * @param name the name messages give the file
   */
  public static GgufFile read(SeekableByteChannel ch, String name) {
    try {
      return new GgufParser(ch, name).parse();
    } catch (IOException e) {
      throw new GgufException(Kind.IO, name, "cannot read (" + IoReason.of(e) + ")", e);
    }
  }
}
