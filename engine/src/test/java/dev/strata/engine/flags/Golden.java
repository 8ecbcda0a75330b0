package dev.strata.engine.flags;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Compares a generated file with the committed one; {@code -Dgolden.update=true} rewrites it. The
 * parent pom passes {@code golden.update} and {@code strata.root} (the repository root) to tests.
 */
public final class Golden {
  private Golden() {}

  /** The repository root: {@code strata.root}, else the nearest folder up holding docs/. */
  public static Path root() {
    String prop = System.getProperty("strata.root");
    if (prop != null && !prop.isBlank() && !prop.contains("${")) {
      return Path.of(prop);
    }
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isRegularFile(p.resolve("docs/ENGINE-CONTRACT.md"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("cannot find the repository root (set -Dstrata.root)");
    }
    return p;
  }

  /** Fails with a diff and the way to update unless {@code relative} holds exactly {@code text}. */
  public static void check(String relative, String text) throws IOException {
    Path file = root().resolve(relative);
    if (Boolean.getBoolean("golden.update")) {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text, StandardCharsets.UTF_8);
      return;
    }
    String committed = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    if (!committed.equals(text)) {
      fail(
          relative
              + " differs from its rendering; if the change is intended, run the engine tests"
              + " with -Dgolden.update=true and commit the file.\n"
              + diff(committed, text));
    }
  }

  /** The first differing region, unified-diff style (committed as -, rendered as +). */
  static String diff(String committed, String rendered) {
    List<String> a = committed.lines().toList();
    List<String> b = rendered.lines().toList();
    int start = 0;
    while (start < a.size() && start < b.size() && a.get(start).equals(b.get(start))) {
      start++;
    }
    int endA = a.size();
    int endB = b.size();
    while (endA > start && endB > start && a.get(endA - 1).equals(b.get(endB - 1))) {
      endA--;
      endB--;
    }
    StringBuilder d = new StringBuilder("--- committed\n+++ rendered\n");
    d.append("@@ -")
        .append(start + 1)
        .append(',')
        .append(endA - start)
        .append(" +")
        .append(start + 1)
        .append(',')
        .append(endB - start)
        .append(" @@\n");
    for (int i = start; i < endA; i++) {
      d.append('-').append(a.get(i)).append('\n');
    }
    for (int i = start; i < endB; i++) {
      d.append('+').append(b.get(i)).append('\n');
    }
    if (a.size() == b.size() && start == a.size()) {
      d.append("(the texts differ only in line endings or the final newline)\n");
    }
    return d.toString();
  }
}
