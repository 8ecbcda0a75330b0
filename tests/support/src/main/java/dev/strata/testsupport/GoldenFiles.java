package dev.strata.testsupport;

import static org.junit.jupiter.api.Assertions.fail;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Golden files: compares an actual text with the committed one, byte for byte.
 *
 * <p>Goldens live in the source tree ({@code tests/src/test/resources/golden/}), not on the class
 * path, because {@code -Dgolden.update=true} rewrites them there. A mismatch writes the actual text
 * beside the golden as {@code NAME.actual} (ignored by git) and fails with a unified diff from the
 * golden to the actual; a match removes a stale {@code .actual}.
 */
public final class GoldenFiles {
  /** The system property that rewrites goldens instead of comparing (the parent pom passes it). */
  public static final String UPDATE_PROPERTY = "golden.update";

  /** The golden folder, relative to the repository root. */
  public static final String FOLDER = "tests/src/test/resources/golden";

  private final Path root;
  private final boolean update;

  /**
   * @param root the golden folder
   * @param update whether a differing or missing golden is rewritten instead of failing
   */
  public GoldenFiles(Path root, boolean update) {
    this.root = root;
    this.update = update;
  }

  /** The project's goldens: under {@code strata.root} (or the module folder), update from -D. */
  public static GoldenFiles project() {
    return new GoldenFiles(projectFolder(), Boolean.getBoolean(UPDATE_PROPERTY));
  }

  /** {@link RepoRoot}/{@value #FOLDER}. */
  public static Path projectFolder() {
    return RepoRoot.resolve(FOLDER);
  }

  /**
   * Files anywhere in the repository that are generated and committed (docs/FLAGS.md, flags.def):
   * names are relative to the repository root.
   */
  public static GoldenFiles repository() {
    return new GoldenFiles(RepoRoot.path(), Boolean.getBoolean(UPDATE_PROPERTY));
  }

  public Path root() {
    return root;
  }

  public boolean updating() {
    return update;
  }

  /** The outcome of one comparison. */
  public sealed interface Result {
    /** The golden's name, relative to the golden folder. */
    String name();
  }

  /** The actual text equals the golden, byte for byte. */
  public record Match(String name) implements Result {}

  /** The golden was (re)written because updating was on. */
  public record Written(String name) implements Result {}

  /**
   * The actual text differs from the golden, or there is no golden.
   *
   * @param diff unified diff from the golden to the actual text (every line added when the golden
   *     is missing)
   * @param actualFile where the actual text was left
   */
  public record Mismatch(String name, String diff, Path actualFile) implements Result {}

  /**
   * Compares {@code actual} with the golden {@code name} (e.g. {@code
   * config/stream-m16g-ctx32768-4shards.yaml}); rewrites it when updating.
   */
  public Result compare(String name, String actual) {
    Path golden = root.resolve(name);
    Path actualFile = golden.resolveSibling(golden.getFileName() + ".actual");
    try {
      String expected =
          Files.exists(golden) ? Files.readString(golden, StandardCharsets.UTF_8) : null;
      if (actual.equals(expected)) {
        Files.deleteIfExists(actualFile);
        return new Match(name);
      }
      if (update) {
        Files.createDirectories(golden.getParent());
        Files.writeString(golden, actual, StandardCharsets.UTF_8);
        Files.deleteIfExists(actualFile);
        return new Written(name);
      }
      Files.createDirectories(golden.getParent());
      Files.writeString(actualFile, actual, StandardCharsets.UTF_8);
      String diff =
          diff("golden/" + name, expected == null ? "" : expected, "actual/" + name, actual);
      return new Mismatch(name, diff, actualFile);
    } catch (IOException e) {
      throw new UncheckedIOException("golden " + golden + ": " + e.getMessage(), e);
    }
  }

  /** {@link #compare}, failing the test on a mismatch with the diff and how to update. */
  public void check(String name, String actual) {
    if (compare(name, actual) instanceof Mismatch m) {
      fail(failure(m, Files.exists(root.resolve(name))));
    }
  }

  /**
   * The failure message of a mismatch: what differs, where the actual text is, how to accept it.
   */
  public static String failure(Mismatch m, boolean goldenExists) {
    return (goldenExists
            ? "golden " + m.name() + " differs from the generated output"
            : "golden " + m.name() + " is missing")
        + " (actual left at "
        + m.actualFile()
        + ").\nA golden changes only when an issue asks for a new default (docs/GOLDEN.md);"
        + " then run with -Dgolden.update=true and name the cells in the commit.\n"
        + m.diff();
  }

  /**
   * Golden files under {@code folder} (relative names, sorted), {@code .actual} files excluded: the
   * matrix tests compare this with the cells they expect, so a stale golden cannot linger.
   */
  public List<String> list(String folder) {
    Path dir = root.resolve(folder);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      List<String> out = new ArrayList<>();
      s.filter(Files::isRegularFile)
          .map(p -> folder + "/" + p.getFileName())
          .filter(n -> !n.endsWith(".actual"))
          .sorted()
          .forEach(out::add);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Removes a golden no cell produces any more; only when updating. */
  public boolean removeStale(String name) {
    if (!update) {
      return false;
    }
    try {
      return Files.deleteIfExists(root.resolve(name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The unified diff (java-diff-utils, as the toolkit's own UnifiedDiff) from one text to another.
   */
  public static String diff(String oldName, String oldText, String newName, String newText) {
    List<String> a = oldText.lines().toList();
    StringBuilder out = new StringBuilder();
    for (String l :
        UnifiedDiffUtils.generateUnifiedDiff(
            oldName, newName, a, DiffUtils.diff(a, newText.lines().toList()), 3)) {
      out.append(l).append('\n');
    }
    if (out.isEmpty() && !oldText.equals(newText)) {
      out.append("(the texts differ only in line endings or the final newline)\n");
    }
    return out.toString();
  }
}
