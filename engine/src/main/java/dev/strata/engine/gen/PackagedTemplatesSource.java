package dev.strata.engine.gen;

import dev.strata.engine.Backend;
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
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Writes {@link PackagedTemplates}, the packaged engine templates as Java values, from their one
 * source {@code templates/engine/<backend>.yaml} (each read with the strict reader, {@link
 * Templates#parse}). The build runs it after the Java compiler (engine/pom.xml, {@code
 * packaged-templates}): when the committed source is not the rendering of the YAML files it writes
 * it again and compiles it into the build's classes, so an edited template is in the very build
 * that follows the edit and never ships stale; an unchanged tree costs one parse.
 *
 * <p>Usage: {@code java -cp CLASSPATH dev.strata.engine.gen.PackagedTemplatesSource TEMPLATES
 * SOURCE CLASSES}: the templates/engine folder, PackagedTemplates.java, the classes folder (also
 * the class path of the compile). Exit 2 with one line naming the file on a bad template, a write
 * or a compile error.
 */
public final class PackagedTemplatesSource {
  private PackagedTemplatesSource() {}

  /** The templates' folder's name in errors and in the templates' names. */
  static final String FOLDER = "templates/engine";

  /** Every {@code *.yaml} under {@code dir}, parsed strictly, by the backend its name gives. */
  public static Map<Backend, Template> fromYaml(Path dir) throws IOException {
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
        throw new IllegalArgumentException(
            name + ": the file name must be a backend id + .yaml (metal, cpu-reference, pc)");
      }
      Template t = Templates.parse(Files.readString(f, StandardCharsets.UTF_8), name);
      if (t.backend() != b) {
        throw new IllegalArgumentException(
            name + ": says backend " + t.backend().id() + ", not " + b.id());
      }
      out.put(b, t);
    }
    return out;
  }

  /**
   * Writes {@code source} from the templates under {@code templates} when it differs, and compiles
   * it into {@code classes}.
   *
   * @return whether it was written
   */
  static boolean write(Path templates, Path source, Path classes) throws IOException {
    if (!GeneratedFiles.writeIfChanged(source, render(fromYaml(templates)))) {
      return false;
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    String cp = System.getProperty("java.class.path");
    int rc =
        javac.run(
            null,
            null,
            null,
            "-proc:none",
            "-encoding",
            "UTF-8",
            "--release",
            Integer.toString(Runtime.version().feature()),
            "-cp",
            cp,
            "-d",
            classes.toString(),
            source.toString());
    if (rc != 0) {
      throw new IOException("javac exited " + rc + " on the written source");
    }
    return true;
  }

  static final String USAGE = "PackagedTemplatesSource TEMPLATES SOURCE CLASSES";

  public static void main(String[] args) {
    GeneratedFiles.main(USAGE, 3, args, PackagedTemplatesSource::run);
  }

  private static void run(String[] a) throws IOException {
    if (write(Path.of(a[0]), Path.of(a[1]), Path.of(a[2]))) {
      System.out.println("PackagedTemplatesSource: wrote " + a[1] + " from " + a[0]);
    }
  }

  private static final int WIDTH = 100;

  /** The source of PackagedTemplates for these templates, in google-java-format's layout. */
  public static String render(Map<Backend, Template> templates) {
    Map<Backend, Template> sorted = new EnumMap<>(Backend.class);
    sorted.putAll(templates);
    StringBuilder s = new StringBuilder();
    s.append("// Generated from templates/engine/*.yaml by the build (PackagedTemplatesSource).\n")
        .append("// Do not edit: change the YAML; the next build writes this file again.\n")
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
        .append(" * §2c). The YAML files are the source; the build writes this class from them")
        .append(" ({@link\n")
        .append(" * PackagedTemplatesSource}, read with the strict reader) and compiles it.\n")
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
