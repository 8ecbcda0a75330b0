package dev.strata.engine.flags;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.testsupport.GoldenFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/FLAGS.md is the table's rendering, byte for byte; flags.def (which the build writes for
 * strata-ref: NativeSourcesTest) has a line per flag and compiles as C.
 */
class FlagFilesTest {

  @Test
  void flagsMarkdownIsTheTablesRendering() throws IOException {
    GoldenFiles.repository().check("docs/FLAGS.md", FlagDocs.markdown());
  }

  @Test
  void docsNameEveryFlagEnvSwitchAndRefusedName() {
    String md = FlagDocs.markdown();
    for (FlagSpec f : EngineFlags.flags()) {
      assertTrue(md.contains("`" + f.usage() + "`"), f.name());
      assertTrue(md.contains(f.help()), f.name());
    }
    for (EnvSwitch s : EnvPolicy.switches()) {
      assertTrue(md.contains("`" + s.name() + "`"), s.name());
    }
    for (String n : EnvPolicy.REFUSED_ENV_NAMES) {
      assertTrue(md.contains("`" + n + "`"), n);
    }
  }

  @Test
  void flagsDefHasOneLinePerFlagAndSwitch() {
    String def = FlagsDef.render();
    assertEquals(
        EngineFlags.flags().size(), def.lines().filter(l -> l.startsWith("STRATA_FLAG(")).count());
    assertEquals(
        EnvPolicy.switches().size(), def.lines().filter(l -> l.startsWith("STRATA_ENV(")).count());
    assertTrue(
        def.contains(
            "STRATA_FLAG(\"--kv-resident\", STRATA_KIND_SWITCH, NULL, STRATA_BACKEND_PC)"));
    assertTrue(
        def.contains(
            "STRATA_FLAG(\"--ctx\", STRATA_KIND_INT(1, 1048576), \"4096\", STRATA_BACKEND_METAL"
                + " | STRATA_BACKEND_CPU_REFERENCE | STRATA_BACKEND_PC)"));
  }

  /** The X-macro list compiles as C the way strata-ref will use it (skipped without a cc). */
  @Test
  void flagsDefCompilesAsC(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(
        Files.isExecutable(Path.of("/usr/bin/cc")), "no C compiler at /usr/bin/cc");
    Files.writeString(dir.resolve("flags.def"), FlagsDef.render());
    Files.writeString(
        dir.resolve("t.c"),
        """
        #include <stddef.h>
        #include <string.h>
        enum kind { K_INT, K_ENUM, K_PATH, K_SWITCH };
        struct flag { const char *name; enum kind kind; long long min, max;
                      const char *choices; const char *def; unsigned backends; };
        #define STRATA_KIND_INT(lo, hi) K_INT, lo, hi, NULL
        #define STRATA_KIND_ENUM(words) K_ENUM, 0, 0, words
        #define STRATA_KIND_PATH K_PATH, 0, 0, NULL
        #define STRATA_KIND_SWITCH K_SWITCH, 0, 0, NULL
        #define STRATA_FLAG(name, kind, def, backends) { name, kind, def, backends },
        static const struct flag flags[] = {
        #include "flags.def"
        };
        #undef STRATA_FLAG
        #define STRATA_FLAG(name, kind, def, backends)
        #define STRATA_ENV(name, values) name,
        static const char *envs[] = {
        #include "flags.def"
        };
        int main(void) {
          return (int)(sizeof flags / sizeof flags[0]) == %d
              && (int)(sizeof envs / sizeof envs[0]) == %d
              && strcmp(flags[1].name, "--ctx") == 0 && flags[1].max == 1048576 ? 0 : 1;
        }
        """
            .formatted(EngineFlags.flags().size(), EnvPolicy.switches().size()));
    Process cc =
        new ProcessBuilder("/usr/bin/cc", "-std=c11", "-Wall", "-Werror", "-o", "t", "t.c")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .start();
    String out = new String(cc.getInputStream().readAllBytes());
    assertTrue(cc.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, cc.exitValue(), out);
    Process run = new ProcessBuilder(dir.resolve("t").toString()).start();
    assertTrue(run.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, run.exitValue());
  }
}
