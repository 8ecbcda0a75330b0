package dev.strata.engine.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/CONFIG.md documents exactly the keys the codec knows, in the writer's order. */
class ConfigDocsTest {
  private static final Pattern ROW = Pattern.compile("^\\| `([a-z0-9_.]+)` \\|");

  @Test
  void configMdListsEveryKeyTheCodecKnowsAndNoOther() throws IOException {
    String md = Files.readString(RepoRoot.path().resolve("docs/CONFIG.md"), StandardCharsets.UTF_8);
    List<String> documented = new ArrayList<>();
    for (String line : md.lines().toList()) {
      Matcher m = ROW.matcher(line);
      if (m.find()) {
        documented.add(m.group(1));
      }
    }
    assertEquals(ConfigCodec.keys(), documented, "docs/CONFIG.md's key table");
  }

  @Test
  void configMdShowsWhatTheWriterWrites() throws IOException {
    String md = Files.readString(RepoRoot.path().resolve("docs/CONFIG.md"), StandardCharsets.UTF_8);
    assertTrue(
        md.contains("```yaml\n" + Configs.METAL_TEXT + "```"), "the example is the writer's");
  }
}
