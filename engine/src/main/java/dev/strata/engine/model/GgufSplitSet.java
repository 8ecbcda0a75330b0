package dev.strata.engine.model;

import dev.strata.engine.FileKind;
import dev.strata.engine.model.GgufException.Kind;
import dev.strata.engine.text.Clip;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which files make a model: a single {@code .gguf}, a folder holding one model, or the shards of a
 * split set as llama.cpp's gguf-split writes them (docs/ENGINE-CONTRACT.md, "Reading"). The headers
 * themselves are read by {@link GgufParser}, and checked to be one model by {@link GgufSplitCheck}.
 */
final class GgufSplitSet {
  private GgufSplitSet() {}

  /** The shard paths of the model {@code input} names, in order; every one exists. */
  static List<Path> resolve(Path input) {
    String shown = input.toString();
    if (Files.isDirectory(input)) {
      return resolveFolder(input);
    }
    Path fileName = input.getFileName();
    Matcher part = fileName == null ? null : BYTE_PART.matcher(fileName.toString());
    if (part != null && part.matches()) {
      throw joinParts(shown, part.group(1), part.group(3));
    }
    if (!Files.exists(input)) {
      if (fileName != null) {
        String prefix = fileName + ".part1of";
        try (DirectoryStream<Path> ds =
            Files.newDirectoryStream(
                parentOf(input), p -> p.getFileName().toString().startsWith(prefix))) {
          for (Path p : ds) {
            Matcher m = BYTE_PART.matcher(p.getFileName().toString());
            if (m.matches()) {
              throw joinParts(
                  shown,
                  "no such file, but its " + m.group(3) + " byte-split parts are here",
                  m.group(1),
                  m.group(3));
            }
          }
        } catch (IOException e) {
          // no listing: plain "no such file" below
        }
      }
      throw new GgufException(
          Kind.NOT_FOUND,
          shown,
          "no such file; pass the model's .gguf file (the first shard of a split model) or its"
              + " folder");
    }
    String kind = FileKind.isNotRegular(input);
    if (kind != null) {
      throw new GgufException(
          Kind.NOT_A_MODEL, shown, kind + "; pass the model's .gguf file (or its folder)");
    }
    Path name = input.getFileName();
    ShardName sn = name == null ? null : ShardName.parse(name.toString());
    if (sn == null) {
      return List.of(input);
    }
    return shardPaths(parentOf(input), sn, shown);
  }

  /**
   * A byte-split part ({@code NAME.gguf.part1of2}): a file cut by bytes (split, HF's old upload
   * limit), not by gguf-split. Groups: the whole file's name, k, n.
   */
  static final Pattern BYTE_PART =
      Pattern.compile("(.+\\.gguf)\\.part(\\d{1,4})of(\\d{1,4})", Pattern.CASE_INSENSITIVE);

  private static GgufException joinParts(String shown, String whole, String count) {
    return joinParts(
        shown,
        "is one of "
            + count
            + " byte-split parts of "
            + Clip.clip(whole)
            + ", not a GGUF on its own",
        whole,
        count);
  }

  private static GgufException joinParts(String shown, String lead, String whole, String count) {
    return new GgufException(
        Kind.NOT_A_MODEL,
        shown,
        lead
            + "; join them in order (cat "
            + Clip.clip(whole)
            + ".part1of"
            + count
            + " … "
            + Clip.clip(whole)
            + ".part"
            + count
            + "of"
            + count
            + " > "
            + Clip.clip(whole)
            + ") and pass the joined file");
  }

  private static Path parentOf(Path p) {
    return p.getParent() != null ? p.getParent() : Path.of("");
  }

  private static List<Path> resolveFolder(Path dir) {
    String shown = dir.toString();
    // key → first file seen: a split set is one model whatever shards are present
    TreeMap<String, Path> models = new TreeMap<>();
    Path notRegular = null; // a FIFO, a device, a folder named *.gguf: not a model, not missing
    int seen = 0;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.gguf")) {
      for (Path p : ds) {
        if (++seen > GgufReader.MAX_FOLDER_FILES) {
          throw new GgufException(
              Kind.ABSURD_COUNT,
              shown,
              "holds more than "
                  + GgufReader.MAX_FOLDER_FILES
                  + " .gguf files; pass the model's first shard");
        }
        if (!Files.isRegularFile(p)) {
          if (notRegular == null) {
            notRegular = p;
          }
          continue;
        }
        String fn = p.getFileName().toString();
        ShardName sn = ShardName.parse(fn);
        models.putIfAbsent(sn == null ? fn : sn.fileName(1), p);
      }
    } catch (AccessDeniedException e) {
      throw new GgufException(Kind.IO, shown, "permission denied; make the folder readable");
    } catch (IOException e) {
      throw new GgufException(
          Kind.IO, shown, "cannot list (" + dev.strata.engine.IoReason.of(e) + ")", e);
    }
    if (models.isEmpty()) {
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.gguf.part*")) {
        for (Path p : ds) {
          Matcher m = BYTE_PART.matcher(p.getFileName().toString());
          if (m.matches()) {
            throw joinParts(p.toString(), m.group(1), m.group(3));
          }
        }
      } catch (IOException e) {
        // no listing: the plain refusal below
      }
      String kind = notRegular == null ? null : FileKind.isNotRegular(notRegular);
      if (kind != null) {
        throw new GgufException(
            Kind.NOT_A_MODEL,
            notRegular.toString(),
            kind + "; the model's .gguf files must be regular files");
      }
      throw new GgufException(
          Kind.NOT_A_MODEL, shown, "holds no .gguf file; pass the folder that holds the model");
    }
    if (models.size() > 1) {
      List<String> names = new ArrayList<>(models.keySet());
      String list = String.join(", ", names.size() > 5 ? names.subList(0, 5) : names);
      throw new GgufException(
          Kind.NOT_A_MODEL,
          shown,
          "holds %s models (%s%s); pass the first shard of the one to use"
              .formatted(models.size(), list, names.size() > 5 ? ", …" : ""));
    }
    String key = models.firstKey();
    ShardName sn = ShardName.parse(key);
    return sn == null ? List.of(models.firstEntry().getValue()) : shardPaths(dir, sn, shown);
  }

  private static List<Path> shardPaths(Path dir, ShardName sn, String shown) {
    if (sn.count() < 1 || sn.count() > GgufReader.MAX_SHARDS) {
      throw new GgufException(
          Kind.ABSURD_COUNT,
          shown,
          "names a set of %s shards (limit %s); check the name"
              .formatted(sn.count(), GgufReader.MAX_SHARDS));
    }
    if (sn.index() < 1 || sn.index() > sn.count()) {
      throw GgufException.inconsistent(
          shown,
          "names shard %s of %s, which cannot exist; check the name"
              .formatted(sn.index(), sn.count()));
    }
    List<Path> paths = new ArrayList<>(sn.count());
    List<Path> missing = new ArrayList<>();
    for (int k = 1; k <= sn.count(); k++) {
      Path p = dir.resolve(sn.fileName(k));
      paths.add(p);
      String kind = FileKind.isNotRegular(p);
      if (kind != null) {
        // it is there, so "download it" would not help: say what it is
        throw new GgufException(
            Kind.NOT_A_MODEL,
            p.toString(),
            "shard %s of %s %s; put the shard's .gguf file itself at this name"
                .formatted(k, sn.count(), kind));
      }
      if (!Files.isRegularFile(p)) {
        missing.add(p);
      }
    }
    if (!missing.isEmpty()) {
      ShardName first = ShardName.parse(missing.getFirst().getFileName().toString());
      throw new GgufException(
          Kind.MISSING_SHARD,
          missing.getFirst().toString(),
          "missing: shard %s of %s%s; download it next to the other shards"
              .formatted(
                  Objects.requireNonNull(first).index(),
                  sn.count(),
                  missing.size() > 1 ? " (" + missing.size() + " shards missing in all)" : ""));
    }
    return paths;
  }
}
