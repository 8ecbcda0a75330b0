package dev.strata.tests.badinput;

import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.model.DemoModel;
import dev.strata.engine.model.GgufFile;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.GgufValue;
import dev.strata.engine.model.GgufWriter;
import dev.strata.engine.model.ModelCorpus;
import dev.strata.metal.HostProbe;
import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.stream.Stream;

/**
 * Builds a case's inputs in its temporary folder: copies {@code badinput/<case>/} (text files with
 * {@code {tmp}} replaced by the folder's path), then runs the case's operations. Generated inputs
 * (GGUF shards, huge files) are described by operations instead of being committed as binaries:
 *
 * <ul>
 *   <li>{@code demo DIR N}: the demo model as N shards in DIR
 *   <li>{@code legacy-split DIR N}: the demo model as N shards in DIR, its split keys renamed as
 *       the first gguf-split wrote them ({@code general.split}, {@code general.split_count}, {@code
 *       general.split_tensors_count})
 *   <li>{@code corpus DIR NAME}: the header of a published model's shape (engine's {@code
 *       ModelCorpus}, NAME as it names it, spaces allowed) as one file in DIR
 *   <li>{@code rm PATH}, {@code mkdir PATH}, {@code mv SRC DST} (shards are sparse: moved, never
 *       copied)
 *   <li>{@code truncate PATH N}: keep the first N bytes
 *   <li>{@code poke PATH OFFSET HEX}: overwrite bytes at OFFSET
 *   <li>{@code huge PATH BYTES}: a file of BYTES bytes of YAML comment lines
 *   <li>{@code chmod PATH rwxrwxrwx}
 *   <li>{@code env NAME=VALUE}: a variable in the command's environment
 *   <li>{@code config FILE}: a good cpu-reference config for this machine, written by the real
 *       codec: the library is strata-ref as built ({@code {lib}}), the model the shards in {@code
 *       model/} (a {@code demo model N} before it)
 *   <li>{@code lib PATH}: a copy of strata-ref at PATH
 *   <li>{@code ln TARGET LINK}: a symbolic link
 *   <li>{@code mkfifo PATH}: a FIFO (named pipe), which nothing may open for reading: it would
 *       block
 *   <li>{@code edit FILE|OLD|NEW}: replace the first OLD by NEW ({@code \t}, {@code \n} escapes),
 *       which must be there
 * </ul>
 *
 * Paths are relative to the temporary folder.
 */
final class Prepare {
  private static final List<String> TEXT = List.of(".yaml", ".yml", ".json", ".txt");

  private Prepare() {}

  /** strata-ref as the engine module built it. */
  static Path refLibrary() {
    return RepoRoot.refLibrary();
  }

  /** {@code {tmp}} and {@code {lib}} in a case's text. */
  static String expand(String text, Path tmp) {
    return text.replace("{tmp}", tmp.toString()).replace("{lib}", refLibrary().toString());
  }

  static void copyCaseFiles(Path from, Path tmp) throws IOException {
    if (!Files.isDirectory(from)) {
      return;
    }
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : files.sorted().toList()) {
        Path to = tmp.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else if (TEXT.stream().anyMatch(p.getFileName().toString()::endsWith)) {
          String text = Files.readString(p, StandardCharsets.UTF_8);
          Files.writeString(to, expand(text, tmp), StandardCharsets.UTF_8);
        } else {
          Files.copy(p, to, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  static void run(String ops, Path tmp) throws IOException {
    if (ops.isBlank() || ops.equals("-")) {
      return;
    }
    for (String op : ops.split(";")) {
      if (op.trim().startsWith("edit ")) {
        edit(op.trim().substring(5), tmp);
        continue;
      }
      String[] w = op.trim().split(" +");
      switch (w[0]) {
        case "demo" -> DemoModel.write(tmp.resolve(w[1]), Integer.parseInt(w[2]));
        // a model strata-ref computes (the seed's demo geometry it refuses): a tiny qwen3moe,
        // seeded
        case "tiny" ->
            dev.strata.engine.model.TinyModel.moe()
                .write(tmp.resolve(w[1]), "tiny", Integer.parseInt(w[2]), 1);
        case "legacy-split" -> legacySplit(tmp.resolve(w[1]), Integer.parseInt(w[2]));
        case "corpus" -> corpus(tmp.resolve(w[1]), op.trim().split(" +", 3)[2]);
        case "rm" -> Files.delete(tmp.resolve(w[1]));
        case "mkdir" -> Files.createDirectories(tmp.resolve(w[1]));
        case "mv" ->
            Files.move(tmp.resolve(w[1]), tmp.resolve(w[2]), StandardCopyOption.REPLACE_EXISTING);
        case "env" -> {
          // read by the test, which builds the command's environment
        }
        case "truncate" -> {
          try (FileChannel ch = FileChannel.open(tmp.resolve(w[1]), StandardOpenOption.WRITE)) {
            ch.truncate(Long.parseLong(w[2]));
          }
        }
        case "poke" -> {
          try (FileChannel ch = FileChannel.open(tmp.resolve(w[1]), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(HexFormat.of().parseHex(w[3])), Long.parseLong(w[2]));
          }
        }
        case "huge" -> huge(tmp.resolve(w[1]), Long.parseLong(w[2]));
        case "chmod" ->
            Files.setPosixFilePermissions(tmp.resolve(w[1]), PosixFilePermissions.fromString(w[2]));
        case "config" -> config(tmp.resolve(w[1]), tmp);
        case "lib" -> Files.copy(refLibrary(), tmp.resolve(w[1]));
        case "mkfifo" -> mkfifo(tmp.resolve(w[1]));
        case "ln" -> Files.createSymbolicLink(tmp.resolve(w[2]), Path.of(expand(w[1], tmp)));
        default -> throw new IllegalArgumentException("unknown prepare operation: " + op);
      }
    }
  }

  private static void legacySplit(Path dir, int shards) throws IOException {
    DemoModel.write(dir, shards);
    Map<String, String> renamed =
        Map.of(
            "split.no", "general.split",
            "split.count", "general.split_count",
            "split.tensors.count", "general.split_tensors_count");
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.filter(f -> f.toString().endsWith(".gguf")).sorted().toList()) {
        GgufFile f = GgufReader.readFile(p);
        SequencedMap<String, GgufValue> meta = new LinkedHashMap<>();
        f.metadata().forEach((k, v) -> meta.put(renamed.getOrDefault(k, k), v));
        List<GgufWriter.Tensor> tensors =
            f.tensors().stream()
                .map(t -> new GgufWriter.Tensor(t.name(), t.type(), t.dims()))
                .toList();
        GgufWriter.write(p, meta, tensors);
      }
    }
  }

  private static void mkfifo(Path p) throws IOException {
    try {
      int rc = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start().waitFor();
      if (rc != 0) {
        throw new IOException("mkfifo " + p + " exited " + rc);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private static void corpus(Path dir, String name) throws IOException {
    Files.createDirectories(dir);
    ModelCorpus.all().stream()
        .filter(s -> s.name.equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no model " + name + " in ModelCorpus"))
        .write(dir);
  }

  private static void edit(String spec, Path tmp) throws IOException {
    String[] p = spec.split("\\|", -1);
    if (p.length != 3) {
      throw new IllegalArgumentException("edit FILE|OLD|NEW, got: " + spec);
    }
    Path file = tmp.resolve(p[0].trim());
    String text = Files.readString(file, StandardCharsets.UTF_8);
    String old = expand(unescape(p[1]), tmp);
    int at = text.indexOf(old);
    if (at < 0) {
      throw new IllegalArgumentException(file + " has no '" + old + "' to edit");
    }
    String now =
        text.substring(0, at) + expand(unescape(p[2]), tmp) + text.substring(at + old.length());
    Files.writeString(file, now, StandardCharsets.UTF_8);
  }

  private static String unescape(String s) {
    return s.replace("\\t", "\t").replace("\\n", "\n");
  }

  /** A config the launcher accepts on this machine: the control every config case departs from. */
  private static void config(Path file, Path tmp) throws IOException {
    List<String> shards;
    try (Stream<Path> s = Files.list(tmp.resolve("model"))) {
      shards = s.map(Path::toString).filter(n -> n.endsWith(".gguf")).sorted().toList();
    }
    EngineConfig c =
        new EngineConfig(
            EngineConfig.SCHEMA,
            new EngineConfig.Engine("cpu-reference", refLibrary().toString(), null),
            new EngineConfig.Model(shards),
            HostProbe.probe().facts(),
            List.of("--model", shards.getFirst(), "--ctx", "4096", "--n-predict", "2"),
            java.util.Map.of());
    Files.writeString(file, ConfigCodec.write(c), StandardCharsets.UTF_8);
  }

  private static void huge(Path file, long bytes) {
    byte[] line =
        "# padding padding padding padding padding padding padding padding\n"
            .getBytes(StandardCharsets.US_ASCII);
    try (OutputStream out = Files.newOutputStream(file)) {
      long left = bytes;
      while (left > 0) {
        int n = (int) Math.min(left, line.length);
        out.write(line, 0, n);
        left -= n;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
