package dev.strata.tests.badinput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The corpus itself: at least 40 bad cases, every class issue 8 names, unique names, no input
 * folder without its row (a case that silently stopped running).
 */
class BadInputCorpusShapeTest {
  /** The classes of issue 8, as the kind column names them. */
  private static final List<String> REQUIRED =
      List.of(
          "yaml-syntax",
          "wrong-type",
          "unknown-key",
          "duplicate-key",
          "schema",
          "empty",
          "folder",
          "huge",
          "alias",
          "nesting",
          "yaml-tag",
          "tab",
          "env-name",
          "shards",
          "gguf-absurd",
          "gguf-truncated",
          "gguf-version",
          "bad-flag-value",
          "unknown-flag",
          "host-json",
          "library");

  @Test
  void corpusIsLargeAndCoversEveryClass() throws IOException {
    List<BadInputCase> cases = new ArrayList<>();
    cases.addAll(BadInputCase.load(CorpusRunner.corpus().resolve("cases.tsv")));
    cases.addAll(BadInputCase.load(CorpusRunner.corpus().resolve("known-bugs.tsv")));
    long bad = cases.stream().filter(c -> !c.kind().startsWith("control")).count();
    assertTrue(bad >= 40, "at least 40 bad-input cases, have " + bad);

    Set<String> kinds = new TreeSet<>();
    cases.forEach(c -> kinds.add(c.kind()));
    List<String> missing = REQUIRED.stream().filter(k -> !kinds.contains(k)).toList();
    assertEquals(List.of(), missing, "classes without a case");

    Set<String> names = new HashSet<>();
    List<String> twice = cases.stream().map(BadInputCase::name).filter(n -> !names.add(n)).toList();
    assertEquals(List.of(), twice, "case names used twice");

    try (Stream<Path> dirs = Files.list(CorpusRunner.corpus())) {
      List<String> orphans =
          dirs.filter(Files::isDirectory)
              .map(p -> p.getFileName().toString())
              .filter(n -> !names.contains(n))
              .sorted()
              .toList();
      assertEquals(List.of(), orphans, "input folders without a row in cases.tsv");
    }
  }
}
