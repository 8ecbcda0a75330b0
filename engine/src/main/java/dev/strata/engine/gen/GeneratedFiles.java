package dev.strata.engine.gen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;

/**
 * What the build's source generators share ({@link NativeSources}, {@link
 * PackagedTemplatesSource}): a file written only when its text changed (so make and javac redo only
 * what a change touches), whole or not at all, and a command line that ends in one line and exit 2
 * on a usage, read or write error.
 */
final class GeneratedFiles {
  private GeneratedFiles() {}

  /** One run of a generator on its arguments. */
  interface Step {
    void run(String[] args) throws IOException;
  }

  /**
   * Writes {@code text} to {@code file} through a temporary sibling, unless the file holds it.
   *
   * @return whether it was written
   */
  static boolean writeIfChanged(Path file, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (Files.exists(file) && Arrays.equals(Files.readAllBytes(file), bytes)) {
      return false;
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(tmp, bytes);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    return true;
  }

  /**
   * A generator's {@code main}: {@code usage} (the tool's name, then its arguments) and exit 2
   * unless there are {@code count} arguments; the step's error as {@code tool: first argument:
   * message} and exit 2.
   */
  static void main(String usage, int count, String[] args, Step step) {
    String tool = usage.substring(0, usage.indexOf(' '));
    if (args.length != count) {
      System.err.println("usage: " + usage);
      System.exit(2);
    }
    try {
      step.run(args);
    } catch (IOException | RuntimeException e) {
      System.err.println(tool + ": " + args[0] + ": " + e.getMessage());
      System.exit(2);
    }
  }
}
