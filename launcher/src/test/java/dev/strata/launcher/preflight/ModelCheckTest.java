package dev.strata.launcher.preflight;

import static dev.strata.launcher.preflight.PreflightFixture.LINUX;
import static dev.strata.launcher.preflight.PreflightFixture.lines;
import static dev.strata.launcher.preflight.PreflightFixture.refusal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.StrataException;
import dev.strata.engine.model.DemoModel;
import dev.strata.launcher.preflight.PreflightFixture.Cfg;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Preflight's model check ({@link ModelCheck}) in this JVM: every listed shard is there and a
 * regular file, the model reads, and {@code model.shards} is exactly its split set, first shard
 * first; each refusal is one line naming the shard, its index in {@code model.shards}, the config,
 * and what to do, and stops the checks (exit 3). {@code --plan} refuses the same (it needs the
 * model).
 */
@DisabledOnOs(OS.WINDOWS)
class ModelCheckTest {
  @TempDir Path dir;
  List<Path> shards;
  Path cfg;

  void demo() throws IOException {
    shards = DemoModel.write(dir.resolve("model"), 4);
    cfg = dir.resolve("engine.yaml");
  }

  /** Refused by the launch and by --plan with the same line; the checks stop at the model. */
  String refused(List<String> listed) {
    Cfg c = Cfg.of(shards).shards(listed);
    String m;
    try (Preflight.Report r = Preflight.full(c.config(), cfg, LINUX, Map.of())) {
      m = refusal(r);
      assertEquals(
          List.of("config", "kv", "library", "model"),
          r.checks().stream().map(Preflight.Check::name).toList());
      assertNull(r.plan(), "no plan without the model");
      assertNull(r.verified(), "nothing will load the library");
    }
    PreflightRefused p =
        assertThrows(
            PreflightRefused.class, () -> Preflight.forPlan(c.config(), cfg, LINUX, Map.of()));
    assertEquals(m, p.getMessage());
    return m;
  }

  static List<String> names(List<Path> paths) {
    return paths.stream().map(Path::toString).toList();
  }

  @Test
  void everyShardListedIsTheModelsSplitSet() throws IOException {
    demo();
    try (Preflight.Report r = Preflight.full(Cfg.of(shards).config(), cfg, LINUX, Map.of())) {
      assertEquals(
          "model OK qwen3next, 4 shard(s), 12 QSA layers, 2 KV heads × 256", lines(r).get(3));
      assertEquals(4, r.model().shards().size());
    }
  }

  @Test
  void aMissingShardIsNamedWithItsIndexAndTheRemedy() throws IOException {
    demo();
    Files.delete(shards.get(2));
    assertEquals(
        "model shard missing: "
            + shards.get(2)
            + " (model.shards[2] in "
            + cfg
            + "): restore it, or rerun strata-setup --model for the shards you have",
        refused(names(shards)));
  }

  @Test
  void aShardThatIsAFolderIsNamed() throws IOException {
    demo();
    List<String> listed = new ArrayList<>(names(shards));
    Path folder = Files.createDirectories(dir.resolve("model/not-a-shard.gguf"));
    listed.set(1, folder.toString());
    assertEquals(
        "model shard "
            + folder
            + " is a folder, not a regular file (model.shards[1] in "
            + cfg
            + "): put the shard's .gguf file itself there, or rerun strata-setup --model for the"
            + " shards you have",
        refused(listed));
    // the last one too: every listed shard is checked, not only the first ones
    listed = new ArrayList<>(names(shards));
    listed.set(3, folder.toString());
    assertTrue(refused(listed).contains("(model.shards[3] in "));
  }

  @Test
  void aListThatIsNotTheWholeSplitSetIsRefused() throws IOException {
    demo();
    String name = shards.getFirst().getFileName().toString();
    assertEquals(
        "model.shards in "
            + cfg
            + " lists 2 shard(s) but the model's split set is 4 ("
            + name
            + " …): rerun strata-setup --model for this model",
        refused(names(shards.subList(0, 2))));
    // the right count in the wrong order is not the split set either
    List<String> swapped = new ArrayList<>(names(shards));
    swapped.set(1, shards.get(2).toString());
    swapped.set(2, shards.get(1).toString());
    assertEquals(
        "model.shards in "
            + cfg
            + " lists 4 shard(s) but the model's split set is 4 ("
            + name
            + " …): rerun strata-setup --model for this model",
        refused(swapped));
  }

  @Test
  void aFileThatIsNotAModelIsRefusedWithTheReadersWords() throws IOException {
    demo();
    Path junk = dir.resolve("junk.gguf");
    Files.writeString(junk, "not a gguf file at all, just text");
    Cfg c = Cfg.of(List.of(junk));
    try (Preflight.Report r = Preflight.full(c.config(), cfg, LINUX, Map.of())) {
      String m = refusal(r);
      assertTrue(m.contains(junk.toString()), m);
      assertInstanceOf(StrataException.class, r.refusal().getCause(), "the reader's error");
      assertEquals(r.refusal().getCause().getMessage(), m, "its words, unchanged");
      assertFalse(m.isBlank());
    }
  }
}
