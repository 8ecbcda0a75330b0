package dev.strata.engine.model;

import dev.strata.engine.model.GgufException.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SequencedMap;
import java.util.Set;
import java.util.TreeMap;

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
  /** Longest string (key, value, tensor name, array element): 1 MiB. */
  public static final int MAX_STRING = 1 << 20;

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

  private static final byte[] MAGIC = {'G', 'G', 'U', 'F'};
  private static final int DEFAULT_ALIGNMENT = 32;

  private GgufReader() {}

  /**
   * Reads a whole model: {@code input} is a single .gguf file, any shard of a split set ({@code
   * NAME-0000k-of-0000n.gguf}, normally the first), or a folder holding exactly one model. Checks
   * that a split set is complete and consistent, then derives the geometry.
   */
  public static GgufModel readModel(Path input) {
    List<Path> paths = resolve(input);
    List<GgufFile> files = new ArrayList<>(paths.size());
    for (Path p : paths) {
      files.add(readFile(p));
    }
    boolean split = ShardName.parse(paths.getFirst().getFileName().toString()) != null;
    checkSet(files, split);
    ModelGeometry geometry = GeometryRules.derive(files);
    List<GgufModel.Shard> shards = new ArrayList<>(files.size());
    for (int i = 0; i < files.size(); i++) {
      GgufFile f = files.get(i);
      shards.add(new GgufModel.Shard(paths.get(i), f.size(), f.tensors().size()));
    }
    long tensorBytes = 0;
    for (GgufFile f : files) {
      for (GgufTensor t : f.tensors()) {
        tensorBytes = addOrAbsurd(tensorBytes, t.bytes(), f.file());
      }
    }
    return new GgufModel(geometry, shards, tensorBytes);
  }

  /** Reads the header of one file. */
  public static GgufFile readFile(Path file) {
    String shown = file.toString();
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return read(ch, shown);
    } catch (NoSuchFileException e) {
      throw new GgufException(Kind.NOT_FOUND, shown, "no such file");
    } catch (AccessDeniedException e) {
      throw new GgufException(Kind.IO, shown, "permission denied; make the file readable");
    } catch (IOException e) {
      throw new GgufException(Kind.IO, shown, "cannot read (" + e.getMessage() + ")", e);
    }
  }

  /**
   * Reads the header of a GGUF held by any channel (a file, or bytes in memory for tests).
   *
   * @param name the name messages give the file
   */
  public static GgufFile read(SeekableByteChannel ch, String name) {
    try {
      return new Parser(ch, name).parse();
    } catch (IOException e) {
      throw new GgufException(Kind.IO, name, "cannot read (" + e.getMessage() + ")", e);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Which files make the model

  /** The shard paths of the model {@code input} names, in order; every one exists. */
  static List<Path> resolve(Path input) {
    String shown = input.toString();
    if (Files.isDirectory(input)) {
      return resolveFolder(input);
    }
    if (!Files.exists(input)) {
      throw new GgufException(
          Kind.NOT_FOUND,
          shown,
          "no such file; pass the model's .gguf file (the first shard of a split model) or its"
              + " folder");
    }
    if (!Files.isRegularFile(input)) {
      throw new GgufException(Kind.NOT_A_MODEL, shown, "not a regular file; pass a .gguf file");
    }
    Path name = input.getFileName();
    ShardName sn = name == null ? null : ShardName.parse(name.toString());
    if (sn == null) {
      return List.of(input);
    }
    return shardPaths(parentOf(input), sn, shown);
  }

  private static Path parentOf(Path p) {
    return p.getParent() != null ? p.getParent() : Path.of("");
  }

  private static List<Path> resolveFolder(Path dir) {
    String shown = dir.toString();
    // key → first file seen: a split set is one model whatever shards are present
    TreeMap<String, Path> models = new TreeMap<>();
    int seen = 0;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.gguf")) {
      for (Path p : ds) {
        if (++seen > MAX_FOLDER_FILES) {
          throw new GgufException(
              Kind.ABSURD_COUNT,
              shown,
              "holds more than " + MAX_FOLDER_FILES + " .gguf files; pass the model's first shard");
        }
        if (!Files.isRegularFile(p)) {
          continue;
        }
        String fn = p.getFileName().toString();
        ShardName sn = ShardName.parse(fn);
        models.putIfAbsent(sn == null ? fn : sn.fileName(1), p);
      }
    } catch (AccessDeniedException e) {
      throw new GgufException(Kind.IO, shown, "permission denied; make the folder readable");
    } catch (IOException e) {
      throw new GgufException(Kind.IO, shown, "cannot list (" + e.getMessage() + ")", e);
    }
    if (models.isEmpty()) {
      throw new GgufException(
          Kind.NOT_A_MODEL, shown, "holds no .gguf file; pass the folder that holds the model");
    }
    if (models.size() > 1) {
      List<String> names = new ArrayList<>(models.keySet());
      String list = String.join(", ", names.size() > 5 ? names.subList(0, 5) : names);
      throw new GgufException(
          Kind.NOT_A_MODEL,
          shown,
          "holds "
              + models.size()
              + " models ("
              + list
              + (names.size() > 5 ? ", …" : "")
              + "); pass the first shard of the one to use");
    }
    String key = models.firstKey();
    ShardName sn = ShardName.parse(key);
    return sn == null ? List.of(models.firstEntry().getValue()) : shardPaths(dir, sn, shown);
  }

  private static List<Path> shardPaths(Path dir, ShardName sn, String shown) {
    if (sn.count() < 1 || sn.count() > MAX_SHARDS) {
      throw new GgufException(
          Kind.ABSURD_COUNT,
          shown,
          "names a set of " + sn.count() + " shards (limit " + MAX_SHARDS + "); check the name");
    }
    if (sn.index() < 1 || sn.index() > sn.count()) {
      throw new GgufException(
          Kind.INCONSISTENT,
          shown,
          "names shard "
              + sn.index()
              + " of "
              + sn.count()
              + ", which cannot exist; check the name");
    }
    List<Path> paths = new ArrayList<>(sn.count());
    List<Path> missing = new ArrayList<>();
    for (int k = 1; k <= sn.count(); k++) {
      Path p = dir.resolve(sn.fileName(k));
      paths.add(p);
      if (!Files.isRegularFile(p)) {
        missing.add(p);
      }
    }
    if (!missing.isEmpty()) {
      ShardName first = ShardName.parse(missing.getFirst().getFileName().toString());
      throw new GgufException(
          Kind.MISSING_SHARD,
          missing.getFirst().toString(),
          "missing: shard "
              + Objects.requireNonNull(first).index()
              + " of "
              + sn.count()
              + (missing.size() > 1 ? " (" + missing.size() + " shards missing in all)" : "")
              + "; download it next to the other shards");
    }
    return paths;
  }

  /**
   * Checks that the files are one model. gguf-split writes the model's metadata into the first
   * shard only and {@code split.no}, {@code split.count}, {@code split.tensors.count} into every
   * shard; any key two shards share must have one value, so a shard of another model or of another
   * split of the same model is caught by its keys or by its tensors.
   */
  static void checkSet(List<GgufFile> files, boolean splitNamed) {
    GgufFile first = files.getFirst();
    if (!splitNamed) {
      long count = first.unsigned("split.count");
      if (count > 1) {
        throw new GgufException(
            Kind.INCONSISTENT,
            first.file(),
            "says it is shard "
                + (first.unsigned("split.no") + 1)
                + " of "
                + count
                + " but its name lacks -0000k-of-0000n.gguf; restore the original file names");
      }
      return;
    }
    int n = files.size();
    for (int k = 0; k < n; k++) {
      GgufFile f = files.get(k);
      long count = f.unsigned("split.count");
      long no = f.unsigned("split.no");
      if (count < 0 || no < 0) {
        if (n == 1) {
          continue; // NAME-00001-of-00001.gguf without split keys: just a single file
        }
        throw new GgufException(
            Kind.FOREIGN_SHARD,
            f.file(),
            "has no split.count/split.no: it is not a shard of this split model; download shard "
                + (k + 1)
                + " again");
      }
      if (count != n) {
        throw new GgufException(
            Kind.FOREIGN_SHARD,
            f.file(),
            "says it is one of "
                + count
                + " shards but the set has "
                + n
                + ": a shard of another model or split; download shard "
                + (k + 1)
                + " again");
      }
      if (no != k) {
        throw new GgufException(
            Kind.INCONSISTENT,
            f.file(),
            "is named shard "
                + (k + 1)
                + " but says it is shard "
                + (no + 1)
                + "; restore the original file names");
      }
    }
    // The value most shards hold is the set's: the odd one out is named, even when it is the first.
    GgufValue common = majority(files, "split.tensors.count");
    for (int k = 0; k < n && n > 1; k++) {
      GgufFile f = files.get(k);
      GgufValue v = f.get("split.tensors.count");
      if (!Objects.equals(v, common)) {
        throw new GgufException(
            Kind.FOREIGN_SHARD,
            f.file(),
            "split.tensors.count is "
                + (v == null ? "absent" : GgufFile.describe(v))
                + " but the other shards say "
                + (common == null ? "nothing" : GgufFile.describe(common))
                + ": a shard of another model; download shard "
                + (k + 1)
                + " again");
      }
    }
    for (int k = 1; k < n; k++) {
      GgufFile f = files.get(k);
      for (Map.Entry<String, GgufValue> e : f.metadata().entrySet()) {
        if (e.getKey().equals("split.no")) {
          continue;
        }
        GgufValue mine = first.get(e.getKey());
        if (mine != null && !mine.equals(e.getValue())) {
          throw new GgufException(
              Kind.FOREIGN_SHARD,
              f.file(),
              GgufException.clip(e.getKey())
                  + " is "
                  + GgufFile.describe(e.getValue())
                  + " but the first shard's is "
                  + GgufFile.describe(mine)
                  + ": a shard of another model; download shard "
                  + (k + 1)
                  + " again");
        }
      }
    }
    Map<String, Integer> where = new HashMap<>();
    long total = 0;
    for (int k = 0; k < n; k++) {
      GgufFile f = files.get(k);
      for (GgufTensor t : f.tensors()) {
        Integer prev = where.putIfAbsent(t.name(), k);
        if (prev != null) {
          throw new GgufException(
              Kind.INCONSISTENT,
              f.file(),
              "holds tensor "
                  + GgufException.clip(t.name())
                  + " which "
                  + files.get(prev).file()
                  + " holds too: shards of different splits; download the set again");
        }
      }
      total += f.tensors().size();
    }
    GgufValue declared = first.get("split.tensors.count");
    if (declared != null) {
      if (!(declared instanceof GgufValue.IntValue iv) || iv.bits() != total) {
        throw new GgufException(
            Kind.INCONSISTENT,
            first.file(),
            "split.tensors.count is "
                + GgufFile.describe(declared)
                + " but the "
                + n
                + " shards hold "
                + total
                + " tensors; download the set again");
      }
    }
  }

  private static GgufValue majority(List<GgufFile> files, String key) {
    Map<GgufValue, Integer> votes = new HashMap<>();
    GgufValue best = files.getFirst().get(key);
    int bestVotes = 0;
    for (GgufFile f : files) {
      GgufValue v = f.get(key);
      if (v == null) {
        continue;
      }
      int c = votes.merge(v, 1, Integer::sum);
      if (c > bestVotes) {
        best = v;
        bestVotes = c;
      }
    }
    // a tie keeps the first shard's value
    GgufValue first = files.getFirst().get(key);
    return first != null && votes.getOrDefault(first, 0) == bestVotes ? first : best;
  }

  private static long addOrAbsurd(long a, long b, String file) {
    try {
      return Math.addExact(a, b);
    } catch (ArithmeticException e) {
      throw new GgufException(
          Kind.ABSURD_COUNT, file, "tensor bytes overflow; the file is damaged");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // One file

  /** A bounded, buffered reader over one channel. Every read checks the bytes left first. */
  private static final class Parser {
    private final SeekableByteChannel ch;
    private final String name;
    private final ByteBuffer buf;
    private final long size;
    private long bufStart;
    private long pos;
    private long kept;
    private long keptElements;

    Parser(SeekableByteChannel ch, String name) throws IOException {
      this.ch = ch;
      this.name = name;
      this.size = ch.size();
      // headers are read in 64 KiB windows; a smaller file needs no more than itself
      int capacity = (int) Math.max(8, Math.min(64 * 1024, size));
      this.buf = ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
      buf.limit(0);
    }

    GgufFile parse() throws IOException {
      int head = (int) Math.min(4, size);
      byte[] magic = new byte[head];
      for (int i = 0; i < head; i++) {
        magic[i] = raw(1, "the magic").get();
      }
      for (int i = 0; i < head; i++) {
        if (magic[i] != MAGIC[i]) {
          throw new GgufException(
              Kind.BAD_MAGIC,
              name,
              "not a GGUF file (it starts with "
                  + hex(magic)
                  + ", not \"GGUF\"); pass the model's .gguf file");
        }
      }
      if (size < 4) {
        throw fail(Kind.TRUNCATED, "is only " + size + " bytes long; download it again");
      }
      long version = u32("the version");
      if (version == 1) {
        throw fail(
            Kind.UNSUPPORTED_VERSION,
            "is GGUF v1 (2023), which this reader does not read; convert the model again with a"
                + " current llama.cpp");
      }
      if (version != 2 && version != 3) {
        long swapped = Integer.toUnsignedLong(Integer.reverseBytes((int) version));
        if (swapped == 2 || swapped == 3) {
          throw fail(
              Kind.UNSUPPORTED_VERSION,
              "is a big-endian GGUF; use the little-endian file of this model");
        }
        throw fail(
            Kind.UNSUPPORTED_VERSION,
            "is GGUF version "
                + version
                + "; this reader knows versions 2 and 3 — update strata or use a v3 file");
      }
      long tensorCount = u64("the tensor count");
      long kvCount = u64("the metadata count");
      // smallest entry: key length + 1-byte key + type + 1-byte value
      count(kvCount, MAX_KVS, 8 + 1 + 4 + 1, "metadata entries");
      // smallest tensor info: name length + 1-byte name + n_dims + type + offset
      count(tensorCount, MAX_TENSORS, 8 + 1 + 4 + 4 + 8, "tensors");

      SequencedMap<String, GgufValue> metadata = new LinkedHashMap<>();
      for (long i = 0; i < kvCount; i++) {
        String key = string(true, "a metadata key");
        String shown = GgufException.clip(key);
        if (key.isEmpty()) {
          throw fail(Kind.MALFORMED, "has an empty metadata key; the file is damaged");
        }
        long typeId = u32("the type of " + shown);
        GgufValueType type = GgufValueType.fromId(typeId);
        if (type == null) {
          throw fail(
              Kind.MALFORMED,
              "gives " + shown + " value type " + typeId + ", which GGUF does not define");
        }
        GgufValue value = value(type, shown);
        if (metadata.putIfAbsent(key, value) != null) {
          throw fail(Kind.MALFORMED, "holds metadata key " + shown + " twice; the file is damaged");
        }
      }
      int alignment = alignment(metadata.get("general.alignment"));

      List<GgufTensor> tensors = new ArrayList<>((int) Math.min(tensorCount, 4096));
      Set<String> names = new HashSet<>();
      for (long i = 0; i < tensorCount; i++) {
        tensors.add(tensorInfo(names));
      }
      long dataOffset = alignUp(pos, alignment);
      long expected = 0;
      for (GgufTensor t : tensors) {
        if (t.offset() != expected) {
          throw fail(
              Kind.MALFORMED,
              "puts tensor "
                  + GgufException.clip(t.name())
                  + " at data offset "
                  + Long.toUnsignedString(t.offset())
                  + ", expected "
                  + expected
                  + " (tensors out of order or overlapping); the file is damaged");
        }
        long end;
        try {
          end = Math.addExact(dataOffset, Math.addExact(t.offset(), t.bytes()));
        } catch (ArithmeticException e) {
          throw fail(
              Kind.ABSURD_COUNT,
              "tensor " + GgufException.clip(t.name()) + " ends past 2^63 bytes");
        }
        if (end > size) {
          throw fail(
              Kind.TRUNCATED,
              "tensor "
                  + GgufException.clip(t.name())
                  + " ends at byte "
                  + end
                  + " but the file has "
                  + size
                  + " bytes: the file is truncated; download it again");
        }
        expected = alignUp(t.offset() + t.bytes(), alignment);
      }
      return new GgufFile(name, (int) version, size, alignment, dataOffset, metadata, tensors);
    }

    private int alignment(GgufValue v) {
      if (v == null) {
        return DEFAULT_ALIGNMENT;
      }
      if (v instanceof GgufValue.IntValue i
          && i.type() != GgufValueType.BOOL
          && i.bits() > 0
          && i.bits() <= (1 << 30)
          && Long.bitCount(i.bits()) == 1) {
        return (int) i.bits();
      }
      throw fail(
          Kind.MALFORMED,
          "general.alignment is "
              + GgufFile.describe(v)
              + "; it must be a power of two up to 2^30; the file is damaged");
    }

    private GgufTensor tensorInfo(Set<String> names) throws IOException {
      String name = string(true, "a tensor name");
      String tn = GgufException.clip(name);
      if (name.isEmpty()) {
        throw fail(Kind.MALFORMED, "has a tensor without a name; the file is damaged");
      }
      if (!names.add(name)) {
        throw fail(Kind.MALFORMED, "holds tensor " + tn + " twice; the file is damaged");
      }
      long nDims = u32("the dimensions of " + tn);
      if (nDims > MAX_DIMS) {
        throw fail(
            Kind.ABSURD_COUNT,
            "gives tensor " + tn + " " + nDims + " dimensions (ggml has at most " + MAX_DIMS + ")");
      }
      List<Long> dims = new ArrayList<>((int) nDims);
      for (int d = 0; d < nDims; d++) {
        long v = u64("a dimension of " + tn);
        if (v < 0) {
          throw fail(
              Kind.ABSURD_COUNT,
              "gives tensor " + tn + " dimension " + Long.toUnsignedString(v) + " (over 2^63)");
        }
        dims.add(v);
      }
      long typeId = u32("the type of " + tn);
      GgmlType type = GgmlType.fromId(typeId);
      if (type == null) {
        throw fail(
            Kind.UNKNOWN_TYPE,
            "tensor "
                + tn
                + " has ggml type "
                + typeId
                + (GgmlType.isRemovedId(typeId)
                    ? ", which ggml removed; quantize the model again with a current llama.cpp"
                    : ", which this reader does not know; update strata or use another"
                        + " quantization"));
      }
      long offset = u64("the data offset of " + tn);
      long bytes;
      try {
        bytes = type.bytes(dims);
      } catch (IllegalArgumentException e) {
        throw fail(Kind.MALFORMED, "tensor " + tn + ": " + e.getMessage());
      } catch (ArithmeticException e) {
        throw fail(Kind.ABSURD_COUNT, "tensor " + tn + " " + dims + " overflows 2^63 bytes");
      }
      return new GgufTensor(name, type, dims, offset, bytes);
    }

    private GgufValue value(GgufValueType type, String key) throws IOException {
      return switch (type) {
        case UINT8 -> new GgufValue.IntValue(type, raw(1, key).get() & 0xFFL);
        case INT8 -> new GgufValue.IntValue(type, raw(1, key).get());
        case UINT16 -> new GgufValue.IntValue(type, raw(2, key).getShort() & 0xFFFFL);
        case INT16 -> new GgufValue.IntValue(type, raw(2, key).getShort());
        case UINT32 -> new GgufValue.IntValue(type, u32(key));
        case INT32 -> new GgufValue.IntValue(type, raw(4, key).getInt());
        case UINT64, INT64 -> new GgufValue.IntValue(type, raw(8, key).getLong());
        case FLOAT32 -> new GgufValue.FloatValue(type, raw(4, key).getFloat());
        case FLOAT64 -> new GgufValue.FloatValue(type, raw(8, key).getDouble());
        case BOOL -> {
          byte b = raw(1, key).get();
          if (b != 0 && b != 1) {
            throw fail(Kind.MALFORMED, "gives bool " + key + " the value " + b + "; not 0 or 1");
          }
          yield new GgufValue.IntValue(type, b);
        }
        case STRING -> new GgufValue.StringValue(string(true, key));
        case ARRAY -> array(key);
      };
    }

    private GgufValue array(String key) throws IOException {
      long typeId = u32("the element type of " + key);
      GgufValueType et = GgufValueType.fromId(typeId);
      if (et == null) {
        throw fail(
            Kind.MALFORMED,
            "gives array " + key + " element type " + typeId + ", which GGUF does not define");
      }
      if (et == GgufValueType.ARRAY) {
        throw fail(Kind.MALFORMED, "nests arrays in " + key + ", which GGUF does not allow");
      }
      long n = u64("the length of " + key);
      count(n, MAX_ARRAY, et == GgufValueType.STRING ? 8 : et.size(), "elements in " + key);
      if (n <= KEEP_ARRAY && keptElements + n <= MAX_KEPT_ELEMENTS) {
        keptElements += n;
        List<GgufValue> elements = new ArrayList<>((int) n);
        for (int i = 0; i < n; i++) {
          elements.add(value(et, key));
        }
        return new GgufValue.ArrayValue(et, n, elements);
      }
      if (et == GgufValueType.STRING) {
        for (long i = 0; i < n; i++) {
          string(false, key);
        }
      } else {
        skip(n * et.size(), key);
      }
      return new GgufValue.ArrayValue(et, n, List.of());
    }

    /** Checks a count against its limit, then against the bytes left at minBytes each. */
    private void count(long n, long max, long minBytes, String what) throws IOException {
      if (n < 0 || n > max) {
        throw fail(
            Kind.ABSURD_COUNT,
            "claims "
                + Long.toUnsignedString(n)
                + " "
                + what
                + " (limit "
                + max
                + "); the file is damaged or not a model");
      }
      if (n * minBytes > size - pos) {
        throw fail(
            Kind.TRUNCATED,
            "claims "
                + n
                + " "
                + what
                + ", which need at least "
                + n * minBytes
                + " bytes, but only "
                + (size - pos)
                + " remain: the file is truncated; download it again");
      }
    }

    private String string(boolean keep, String what) throws IOException {
      long len = u64("the length of " + what);
      if (len < 0 || len > MAX_STRING) {
        throw fail(
            Kind.ABSURD_COUNT,
            "claims a string of "
                + Long.toUnsignedString(len)
                + " bytes in "
                + what
                + " (limit "
                + MAX_STRING
                + ")");
      }
      if (!keep) {
        skip(len, what);
        return "";
      }
      need(len, what);
      kept += len;
      if (kept > MAX_KEPT_BYTES) {
        throw fail(
            Kind.ABSURD_COUNT,
            "holds more than " + (MAX_KEPT_BYTES >> 20) + " MiB of metadata strings");
      }
      byte[] bytes = new byte[(int) len];
      if (len <= buf.capacity()) {
        raw((int) len, what).get(bytes);
      } else {
        ByteBuffer dst = ByteBuffer.wrap(bytes);
        ch.position(pos);
        while (dst.hasRemaining()) {
          if (ch.read(dst) <= 0) {
            throw shrunk(what);
          }
        }
        pos += len;
      }
      return new String(bytes, StandardCharsets.UTF_8);
    }

    private long u32(String what) throws IOException {
      return Integer.toUnsignedLong(raw(4, what).getInt());
    }

    private long u64(String what) throws IOException {
      return raw(8, what).getLong();
    }

    private void skip(long n, String what) {
      need(n, what);
      pos += n;
    }

    private void need(long n, String what) {
      if (n > size - pos) {
        throw fail(
            Kind.TRUNCATED,
            "ends at byte "
                + size
                + " inside "
                + what
                + " (needs "
                + (n - (size - pos))
                + " more bytes): the file is truncated; download it again");
      }
    }

    /** The buffer positioned at {@code pos} with n (≤ buffer size) bytes readable; advances pos. */
    private ByteBuffer raw(int n, String what) throws IOException {
      need(n, what);
      if (pos < bufStart || pos + n > bufStart + buf.limit()) {
        buf.clear();
        ch.position(pos);
        while (buf.hasRemaining()) {
          if (ch.read(buf) <= 0) {
            break;
          }
        }
        buf.flip();
        bufStart = pos;
        if (buf.limit() < n) {
          throw shrunk(what);
        }
      }
      buf.position((int) (pos - bufStart));
      pos += n;
      return buf;
    }

    private GgufException shrunk(String what) {
      return fail(Kind.TRUNCATED, "became shorter while being read (at " + what + "); try again");
    }

    private GgufException fail(Kind kind, String detail) {
      return new GgufException(kind, name, detail);
    }

    private static long alignUp(long v, int alignment) {
      return (v + alignment - 1) & -(long) alignment;
    }

    private static String hex(byte[] b) {
      StringBuilder sb = new StringBuilder("0x");
      for (byte x : b) {
        sb.append(String.format("%02x", x & 0xFF));
      }
      return b.length == 0 ? "nothing (empty file)" : sb.toString();
    }
  }
}
