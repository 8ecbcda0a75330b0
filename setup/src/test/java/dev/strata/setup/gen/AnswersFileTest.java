package dev.strata.setup.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.StrataException;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AnswersFileTest {
  @Test
  void readsAnswersWithPathsFromTheFilesFolder(@TempDir Path dir) throws IOException {
    Path f = dir.resolve("answers.yaml");
    Files.writeString(
        f, "model: models/m.gguf\nctx: 32768\nexperts: stream\nkv: q4_0\nengine-lib: /l.so\n");
    Given g = AnswersFile.read(f);
    assertEquals(dir.resolve("models/m.gguf"), g.model());
    assertEquals(32_768L, g.context());
    assertEquals(ExpertsMode.STREAM, g.experts());
    assertEquals(KvFormat.Q4_0, g.kv());
    assertEquals(Path.of("/l.so"), g.engineLib());
    assertNull(g.backend());
  }

  @Test
  void flagsWinOverTheFile() {
    Given file = new Given(Path.of("/a"), 8192L, ExpertsMode.STREAM, null, null, null, null);
    Given flags = new Given(null, 4096L, null, null, null, null, null);
    Given g = flags.over(file);
    assertEquals(4096L, g.context());
    assertEquals(Path.of("/a"), g.model());
  }

  private static String refusal(Path dir, String yaml) throws IOException {
    Path f = dir.resolve("a.yaml");
    Files.writeString(f, yaml);
    StrataException e = assertThrows(StrataException.class, () -> AnswersFile.read(f));
    assertEquals(2, e.exitCode());
    return e.getMessage().substring(dir.toString().length() + 1);
  }

  /** An answers file ({@code \n}: a line break) and the one line that refuses it, exit 2. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          "model: m\\nctz: 8192\\n" | "a.yaml:2: unknown key 'ctz' (did you mean ctx?) (known: model, ctx, experts, kv, engine-lib, backend, host-file)"
          "experts: streaming\\n" | "a.yaml:1: experts: 'streaming' is not one of stream, resident"
          "ctx: 32kb\\n" | "a.yaml:1: ctx: '32kb' is not a context size: tokens as digits (32768), or with k for x 1,024 (32k)"
          "ctx: 0\\n" | "a.yaml:1: ctx: 0 is out of range (a whole number in 1..1048576)"
          "kv: q4\\n" | "a.yaml:1: kv: 'q4' is not one of fp16, int8, q4_0, k8v4 (did you mean q4_0?)"
          "- a\\n- b\\n" | "a.yaml:1: must be a mapping of keys to values"
          """)
  void strictAboutKeysAndValues(String yaml, String message, @TempDir Path dir) throws IOException {
    assertEquals(message, refusal(dir, yaml.replace("\\n", "\n")));
  }

  /** ctx as a number, as a quoted string, or with k; ~ is the home folder given. */
  @Test
  void ctxAsTextAndTildePaths(@TempDir Path dir) throws IOException {
    Path f = dir.resolve("a.yaml");
    Path home = dir.resolve("home");
    for (String ctx : new String[] {"8192", "\"8192\"", "'8192'", "8k", "8_192"}) {
      Files.writeString(f, "ctx: " + ctx + "\nmodel: ~/models/m.gguf\nengine-lib: lib/x.so\n");
      Given g = AnswersFile.read(f, home);
      assertEquals(8192L, g.context(), ctx);
      assertEquals(home.resolve("models/m.gguf"), g.model(), ctx);
      assertEquals(dir.resolve("lib/x.so"), g.engineLib(), "relative: from the file's folder");
    }
  }

  @Test
  void aFolderIsNotAnAnswersFile(@TempDir Path dir) {
    StrataException e = assertThrows(StrataException.class, () -> AnswersFile.read(dir));
    assertEquals(dir + ": is a folder, not a YAML file", e.getMessage());
  }
}
