package dev.strata.engine.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.testsupport.GoldenFiles;
import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code templates/engine/*.yaml} are the source of the packaged templates; {@link
 * PackagedTemplates} is their compiled form, which {@link Templates#load} returns (no resource
 * read, no YAML parse at run time: docs/PERFORMANCE.md §2). This test reads every YAML file with
 * the strict reader ({@link Templates#parse}, all its checks) and requires the compiled values to
 * equal them, backend for backend. The build writes {@value #SOURCE} from the YAML ({@link
 * PackagedTemplatesSource}, in google-java-format's layout); this test keeps the generator honest.
 */
class PackagedTemplatesTest {
  /** The generated source, relative to the repository root. */
  static final String SOURCE = "engine/src/main/java/dev/strata/engine/gen/PackagedTemplates.java";

  /** The templates' folder, relative to the repository root. */
  static final String FOLDER = "templates/engine";

  static final String REMEDY =
      "templates/engine/*.yaml are the source of "
          + SOURCE
          + ": the build writes it (PackagedTemplatesSource, engine/pom.xml's packaged-templates"
          + " step, after the Java compiler); build the engine module again. The rendering is in"
          + " google-java-format's layout; should the build's spotless:check disagree, fix"
          + " PackagedTemplatesSource.render, not the generated class.";

  @Test
  void compiledTemplatesAreTheYamlFiles() throws IOException {
    Map<Backend, Template> yaml = fromYaml(RepoRoot.resolve(FOLDER));
    Map<Backend, Template> compiled = compiled();
    if (yaml.equals(compiled)) {
      return;
    }
    List<String> problems = new ArrayList<>();
    for (Backend b : Backend.values()) {
      if (yaml.containsKey(b) && !compiled.containsKey(b)) {
        problems.add(FOLDER + "/" + b.id() + ".yaml has no entry in PackagedTemplates");
      } else if (!yaml.containsKey(b) && compiled.containsKey(b)) {
        problems.add("PackagedTemplates has " + b.id() + " but " + FOLDER + " has no such file");
      } else if (yaml.containsKey(b) && !yaml.get(b).equals(compiled.get(b))) {
        problems.add(
            "PackagedTemplates' " + b.id() + " differs from " + FOLDER + "/" + b.id() + ".yaml");
      }
    }
    fail(
        String.join("\n", problems)
            + "\n"
            + REMEDY
            + "\n"
            + GoldenFiles.diff(SOURCE, render(compiled), FOLDER + "/*.yaml", render(yaml)));
  }

  @Test
  void theCommittedSourceIsTheRendering() throws IOException {
    // The build wrote the class from the YAML (PackagedTemplatesSource), so a regeneration
    // changes only what the YAML changed.
    Map<Backend, Template> yaml = fromYaml(RepoRoot.resolve(FOLDER));
    assertEquals(
        render(yaml),
        Files.readString(RepoRoot.resolve(SOURCE), StandardCharsets.UTF_8),
        "the committed " + SOURCE + " is not the rendering of " + FOLDER + "\n" + REMEDY);
  }

  /**
   * The build's step: an edited template is written into the source and compiled into the classes
   * in the same run; an unchanged one writes nothing; a bad one is one line naming the file.
   */
  @Test
  void theBuildWritesAndCompilesTheSourceOfAnEditedTemplate(@TempDir Path tmp) throws IOException {
    Path templates = Files.createDirectories(tmp.resolve("engine"));
    for (Path f : List.of(RepoRoot.resolve(FOLDER).resolve("metal.yaml"))) {
      String yaml = Files.readString(f, StandardCharsets.UTF_8);
      Files.writeString(templates.resolve("metal.yaml"), yaml.replace("'2'", "'3'"));
    }
    Path source = tmp.resolve("PackagedTemplates.java");
    Path classes = Files.createDirectories(tmp.resolve("classes"));
    assertTrue(PackagedTemplatesSource.write(templates, source, classes));
    String text = Files.readString(source, StandardCharsets.UTF_8);
    assertEquals(render(fromYaml(templates)), text);
    assertTrue(text.contains("List.of(\"--spec\", \"3\""), text);
    assertTrue(
        Files.isRegularFile(classes.resolve("dev/strata/engine/gen/PackagedTemplates.class")));
    assertFalse(PackagedTemplatesSource.write(templates, source, classes), "unchanged");
    Files.writeString(
        templates.resolve("metal.yaml"), "template: strata.template/v1\nbackend: pc\n");
    RuntimeException e =
        assertThrows(
            RuntimeException.class,
            () -> PackagedTemplatesSource.write(templates, source, classes));
    assertTrue(e.getMessage().contains("templates/engine/metal.yaml"), e.getMessage());
  }

  @Test
  void aBackendWithoutAYamlFileHasNoTemplate() throws IOException {
    Map<Backend, Template> yaml = fromYaml(RepoRoot.resolve(FOLDER));
    for (Backend b : Backend.values()) {
      if (!yaml.containsKey(b)) {
        assertNull(PackagedTemplates.of(b), b.id());
        StrataException e = assertThrows(StrataException.class, () -> Templates.load(b));
        assertEquals(ExitCodes.USAGE, e.exitCode());
        assertEquals(
            "no engine template for backend " + b.id() + " (templates/engine/)", e.getMessage());
      }
    }
  }

  @Test
  void javaLiteralsEscapeWhatJavaSourceCannotHoldVerbatim() {
    assertEquals("\"a\\\"b\\\\c\"", literal("a\"b\\c"));
    assertEquals("\"\\n\\r\\t\\b\\f\\000\\033\\177\"", literal("\n\r\t\b\f\0\033\177"));
    // Non-ASCII as \\u escapes (never the line terminators' \\u000a, which javac reads as a
    // newline).
    assertEquals("\"\\u00e9\\ud83d\\ude00\"", literal("é\uD83D\uDE00"));
  }

  @Test
  void renderingBreaksLinesAsGoogleJavaFormat() {
    // Two of the three layouts of a call (one line; one argument a line), nested; the third
    // (arguments on one line after the break) is cpu-reference's List.of in the committed class,
    // which the build's spotless:check formats. Checked by running google-java-format 1.32.0 (the
    // build's) on the rendering of 28 templates of every layout: it changed nothing.
    String args =
        "--spec 2 --suffix-draft 0 --prompt-tokens 512 --n-predict 64 --yy 3 --z-flag-of-26-chars-long 4";
    Map<String, String> env =
        Map.of(
            "A",
            "1",
            "STRATA_LONG_NAME_OF_A_SWITCH_THAT_IS_LONG",
            "some-longer-value-here-too-long-yes");
    Template t =
        new Template("templates/engine/metal.yaml", Backend.METAL, List.of(args.split(" ")), env);
    String text = render(Map.of(Backend.METAL, t));
    assertEquals(
        """
          private static Template metal() {
            return new Template(
                "templates/engine/metal.yaml",
                Backend.METAL,
                List.of(
                    "--spec",
                    "2",
                    "--suffix-draft",
                    "0",
                    "--prompt-tokens",
                    "512",
                    "--n-predict",
                    "64",
                    "--yy",
                    "3",
                    "--z-flag-of-26-chars-long",
                    "4"),
                Map.ofEntries(
                    Map.entry("A", "1"),
                    Map.entry(
                        "STRATA_LONG_NAME_OF_A_SWITCH_THAT_IS_LONG",
                        "some-longer-value-here-too-long-yes")));
          }
        """,
        text.substring(text.indexOf("  private static Template metal()"), text.lastIndexOf("}")));
  }

  static Map<Backend, Template> fromYaml(Path dir) throws IOException {
    return PackagedTemplatesSource.fromYaml(dir);
  }

  static String render(Map<Backend, Template> templates) {
    return PackagedTemplatesSource.render(templates);
  }

  static String literal(String s) {
    return PackagedTemplatesSource.literal(s);
  }

  static Map<Backend, Template> compiled() {
    Map<Backend, Template> out = new EnumMap<>(Backend.class);
    for (Backend b : Backend.values()) {
      Template t = PackagedTemplates.of(b);
      if (t != null) {
        out.put(b, t);
      }
    }
    return out;
  }
}
