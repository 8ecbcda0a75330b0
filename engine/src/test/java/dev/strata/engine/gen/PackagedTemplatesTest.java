package dev.strata.engine.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code templates/engine/*.yaml} are the source of the packaged templates; {@link
 * PackagedTemplates} is their compiled form, which {@link Templates#load} returns (no resource
 * read, no YAML parse at run time: docs/PERFORMANCE.md §2). This test reads every YAML file with
 * the strict reader ({@link Templates#parse}, all its checks) and requires the compiled values to
 * equal them, backend for backend; with {@code -Dgolden.update=true} (docs/GOLDEN.md) it rewrites
 * {@value #SOURCE} from the YAML instead ({@link #render}, in google-java-format's layout).
 */
class PackagedTemplatesTest {
  /** The generated source, relative to the repository root. */
  static final String SOURCE = "engine/src/main/java/dev/strata/engine/gen/PackagedTemplates.java";

  /** The templates' folder, relative to the repository root. */
  static final String FOLDER = "templates/engine";

  static final String REMEDY =
      "templates/engine/*.yaml are the source of "
          + SOURCE
          + ": regenerate it with\n"
          + "  mvn -pl engine -am verify -Dtest=PackagedTemplatesTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -Dgolden.update=true\n"
          + "(./strata test -Dgolden.update=true does it too, but its config goldens would be made"
          + " with the class compiled before the rewrite: regenerate the class first). The rewrite is"
          + " in google-java-format's layout; should the build's spotless:check disagree, fix"
          + " PackagedTemplatesTest.render, not the generated class.";

  @Test
  void compiledTemplatesAreTheYamlFiles() throws IOException {
    Map<Backend, Template> yaml = fromYaml(RepoRoot.resolve(FOLDER));
    Map<Backend, Template> compiled = compiled();
    if (updated(yaml) || yaml.equals(compiled)) {
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
    // The class is what render() writes, so a regeneration changes only what the YAML changed.
    Map<Backend, Template> yaml = fromYaml(RepoRoot.resolve(FOLDER));
    if (updated(yaml)) {
      return;
    }
    assertEquals(
        render(yaml),
        Files.readString(RepoRoot.resolve(SOURCE), StandardCharsets.UTF_8),
        "the committed " + SOURCE + " is not the rendering of " + FOLDER + "\n" + REMEDY);
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

  /**
   * With {@code -Dgolden.update=true}: rewrites {@value #SOURCE} when it is not the rendering of
   * {@code yaml} (the class compiled into this run stays the old one until the next build).
   */
  private static boolean updated(Map<Backend, Template> yaml) throws IOException {
    if (!Boolean.getBoolean(GoldenFiles.UPDATE_PROPERTY)) {
      return false;
    }
    Path source = RepoRoot.resolve(SOURCE);
    String text = render(yaml);
    if (!text.equals(Files.readString(source, StandardCharsets.UTF_8))) {
      Files.writeString(source, text, StandardCharsets.UTF_8);
    }
    return true;
  }

  /** Every {@code *.yaml} under {@code dir}, parsed strictly, by the backend its name gives. */
  static Map<Backend, Template> fromYaml(Path dir) throws IOException {
    Map<Backend, Template> out = new EnumMap<>(Backend.class);
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted().toList();
    }
    for (Path f : files) {
      String file = f.getFileName().toString();
      String name = FOLDER + "/" + file;
      Backend b = Backend.fromId(file.substring(0, file.length() - ".yaml".length()));
      if (b == null || !(b.id() + ".yaml").equals(file)) {
        fail(name + ": the file name must be a backend id + .yaml (metal, cpu-reference, pc)");
      }
      Template t = Templates.parse(Files.readString(f, StandardCharsets.UTF_8), name);
      if (t.backend() != b) {
        fail(name + ": says backend " + t.backend().id() + ", not " + b.id());
      }
      out.put(b, t);
    }
    return out;
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

  // --- the generated source -------------------------------------------------------------------

  private static final int WIDTH = 100;

  /** {@value #SOURCE} for these templates, in google-java-format's layout. */
  static String render(Map<Backend, Template> templates) {
    Map<Backend, Template> sorted = new EnumMap<>(Backend.class);
    sorted.putAll(templates);
    StringBuilder s = new StringBuilder();
    s.append("// Generated from templates/engine/*.yaml by PackagedTemplatesTest (engine tests).\n")
        .append("// Do not edit: change the YAML, then run (templates/README.md)\n")
        .append("//   mvn -pl engine -am verify -Dtest=PackagedTemplatesTest \\\n")
        .append("//     -Dsurefire.failIfNoSpecifiedTests=false -Dgolden.update=true\n")
        .append("package dev.strata.engine.gen;\n\n")
        .append("import dev.strata.engine.Backend;\n")
        .append("import java.util.List;\n")
        .append("import java.util.Map;\n\n")
        .append("/**\n")
        .append(
            " * The packaged engine templates, {@code templates/engine/<backend>.yaml}, as values:")
        .append(" {@link\n")
        .append(" * Templates#load} returns them without reading a resource or parsing YAML")
        .append(" (docs/PERFORMANCE.md\n")
        .append(" * §2c). The YAML files are the source; {@code PackagedTemplatesTest} reads each")
        .append(" with the strict\n")
        .append(" * reader and keeps this class equal to them.\n")
        .append(" */\n")
        .append("final class PackagedTemplates {\n")
        .append("  private PackagedTemplates() {}\n\n")
        .append(
            "  /** The packaged template of a backend; null when templates/engine/ has none. */\n")
        .append("  static Template of(Backend backend) {\n")
        .append("    return switch (backend) {\n");
    for (Backend b : sorted.keySet()) {
      s.append("      case ").append(b.name()).append(" -> ").append(method(b)).append("();\n");
    }
    s.append("      default -> null;\n").append("    };\n").append("  }\n");
    for (Map.Entry<Backend, Template> e : sorted.entrySet()) {
      Template t = e.getValue();
      List<Expr> args = new ArrayList<>();
      for (String a : t.args()) {
        args.add(new Atom(literal(a)));
      }
      List<Expr> env = new ArrayList<>();
      t.env().forEach((k, v) -> env.add(new Call("Map.entry", List.of(atom(k), atom(v)))));
      Expr ctor =
          new Call(
              "new Template",
              List.of(
                  atom(t.name()),
                  new Atom("Backend." + t.backend().name()),
                  new Call("List.of", args),
                  env.isEmpty() ? new Call("Map.of", List.of()) : new Call("Map.ofEntries", env)));
      s.append("\n  private static Template ").append(method(e.getKey())).append("() {\n");
      layout(s, 4, "return ", ctor, ";");
      s.append("  }\n");
    }
    return s.append("}\n").toString();
  }

  /** CPU_REFERENCE → cpuReference. */
  private static String method(Backend b) {
    StringBuilder m = new StringBuilder();
    for (String part : b.name().toLowerCase(Locale.ROOT).split("_")) {
      m.append(m.isEmpty() ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
    }
    return m.toString();
  }

  /** An expression of the generated code: a literal or a call with arguments. */
  private sealed interface Expr permits Atom, Call {
    String flat();
  }

  private record Atom(String flat) implements Expr {}

  private record Call(String name, List<Expr> args) implements Expr {
    @Override
    public String flat() {
      List<String> a = new ArrayList<>();
      for (Expr e : args) {
        a.add(e.flat());
      }
      return name + "(" + String.join(", ", a) + ")";
    }
  }

  private static Atom atom(String s) {
    return new Atom(literal(s));
  }

  /**
   * google-java-format's layout of a call: on one line if it fits; else a break after "(" and the
   * arguments on one line at +4 if they fit there (none of them broken); else one argument a line,
   * each laid out the same way.
   */
  private static void layout(StringBuilder s, int indent, String prefix, Expr e, String suffix) {
    String pad = " ".repeat(indent);
    String flat = prefix + e.flat() + suffix;
    if (!(e instanceof Call c) || indent + flat.length() <= WIDTH || c.args().isEmpty()) {
      s.append(pad).append(flat).append('\n');
      return;
    }
    s.append(pad).append(prefix).append(c.name()).append("(\n");
    String inner = new Call("", c.args()).flat();
    String oneLine = inner.substring(1, inner.length() - 1) + ")" + suffix;
    if (indent + 4 + oneLine.length() <= WIDTH) {
      s.append(pad).append("    ").append(oneLine).append('\n');
      return;
    }
    for (int i = 0; i < c.args().size(); i++) {
      boolean last = i == c.args().size() - 1;
      layout(s, indent + 4, "", c.args().get(i), last ? ")" + suffix : ",");
    }
  }

  /** A Java string literal of {@code s}: printable ASCII as is, the rest escaped. */
  static String literal(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '\b' -> b.append("\\b");
        case '\f' -> b.append("\\f");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            b.append(String.format(Locale.ROOT, "\\%03o", (int) c));
          } else if (c > 0x7f) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
