package dev.strata.tests.badinput;

import dev.strata.engine.model.DemoModel;
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
import java.util.List;
import java.util.stream.Stream;

/**
 * Builds a case's inputs in its temporary folder: copies {@code badinput/<case>/} (text files with
 * {@code {tmp}} replaced by the folder's path), then runs the case's operations. Generated inputs
 * (GGUF shards, huge files) are described by operations instead of being committed as binaries:
 *
 * <ul>
 *   <li>{@code demo DIR N}: the demo model as N shards in DIR
 *   <li>{@code rm PATH}, {@code mkdir PATH}, {@code mv SRC DST} (shards are sparse: moved, never
 *       copied)
 *   <li>{@code truncate PATH N}: keep the first N bytes
 *   <li>{@code poke PATH OFFSET HEX}: overwrite bytes at OFFSET
 *   <li>{@code huge PATH BYTES}: a file of BYTES bytes of YAML comment lines
 *   <li>{@code chmod PATH rwxrwxrwx}
 *   <li>{@code env NAME=VALUE}: a variable in the command's environment
 * </ul>
 *
 * Paths are relative to the temporary folder.
 */
final class Prepare {
  private static final List<String> TEXT = List.of(".yaml", ".yml", ".json", ".txt");

  private Prepare() {}

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
          Files.writeString(to, text.replace("{tmp}", tmp.toString()), StandardCharsets.UTF_8);
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
      String[] w = op.trim().split(" +");
      switch (w[0]) {
        case "demo" -> DemoModel.write(tmp.resolve(w[1]), Integer.parseInt(w[2]));
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
        default -> throw new IllegalArgumentException("unknown prepare operation: " + op);
      }
    }
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
