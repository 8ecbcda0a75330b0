package dev.strata.dist;

import dev.strata.cli.Io;
import dev.strata.launcher.LaunchCli;
import dev.strata.setup.SetupCli;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IllegalFormatException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Writes the man(7) pages of {@code strata-setup}, {@code strata-launch} and their subcommands from
 * the same picocli model that prints {@code --help}, so a page cannot drift from the command.
 *
 * <p>Run at build time by the dist module ({@code man/man1/} of the distribution).
 * picocli-codegen's generator writes AsciiDoc, which needs Asciidoctor to become a page {@code man}
 * reads; groff written here from the model needs nothing at build time or on the user's Mac.
 *
 * <p>Usage: {@code ManPages OUT_DIR VERSION}. Output is deterministic (no date), so a rebuild
 * changes a page only when a command changed.
 */
public final class ManPages {
  private ManPages() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: ManPages OUT_DIR VERSION");
      System.exit(2);
    }
    Path out = Path.of(args[0]);
    Files.createDirectories(out);
    List<CommandSpec> roots = List.of(setupSpec(), launchSpec());
    int n = 0;
    for (CommandSpec root : roots) {
      List<String> others = new ArrayList<>();
      for (CommandSpec r : roots) {
        if (r != root) {
          others.add(r.name());
        }
      }
      for (Map.Entry<String, String> page : pages(root, args[1], others).entrySet()) {
        Files.writeString(out.resolve(page.getKey()), page.getValue(), StandardCharsets.UTF_8);
        n++;
      }
    }
    System.err.println("man pages: " + n + " written to " + out);
  }

  /** The commands as the launchers build them; their streams are never used here. */
  static CommandSpec setupSpec() {
    PrintWriter sink = sink();
    return SetupCli.create(Io.of(InputStream.nullInputStream(), sink, sink, Map.of(), false))
        .getCommandSpec();
  }

  static CommandSpec launchSpec() {
    PrintWriter sink = sink();
    return LaunchCli.create(
            new Io(java.io.InputStream.nullInputStream(), sink, sink, Map.of(), false, code -> {}))
        .getCommandSpec();
  }

  private static PrintWriter sink() {
    return new PrintWriter(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
  }

  /**
   * One page per command of the tree under {@code root} (picocli's own {@code help} subcommand
   * excepted), keyed by file name: {@code strata-setup.1}, {@code strata-setup-probe.1} ...
   */
  public static Map<String, String> pages(CommandSpec root, String version, List<String> others) {
    Map<String, String> out = new LinkedHashMap<>();
    collect(root, version, others, out);
    return out;
  }

  private static void collect(
      CommandSpec spec, String version, List<String> others, Map<String, String> out) {
    out.put(pageName(spec) + ".1", page(spec, version, others));
    for (CommandLine sub : subcommands(spec)) {
      collect(sub.getCommandSpec(), version, others, out);
    }
  }

  private static List<CommandLine> subcommands(CommandSpec spec) {
    List<CommandLine> subs = new ArrayList<>();
    for (Map.Entry<String, CommandLine> e : spec.subcommands().entrySet()) {
      CommandSpec s = e.getValue().getCommandSpec();
      // aliases appear once per name; picocli's help command has no page of its own
      if (e.getKey().equals(s.name())
          && !s.usageMessage().hidden()
          && !(s.userObject() instanceof CommandLine.HelpCommand)) {
        subs.add(e.getValue());
      }
    }
    return subs;
  }

  /** The options or arguments a user sees: not hidden. */
  private static <T extends ArgSpec> List<T> visible(List<T> all) {
    return all.stream().filter(a -> !a.hidden()).toList();
  }

  /**
   * An option's or argument's text: its description, then on a line of its own "Values: …" (unless
   * the description lists them already) and {@code extra} (null for none).
   */
  private static void item(StringBuilder b, ArgSpec a, String extra) {
    text(b, lines(a.description()));
    List<String> more = new ArrayList<>();
    String candidates = candidates(a.completionCandidates());
    if (candidates != null && !String.join(" ", a.description()).contains(candidates)) {
      more.add("Values: " + candidates + ".");
    }
    if (extra != null) {
      more.add(extra);
    }
    if (!more.isEmpty()) {
      b.append(".br\n");
      text(b, List.of(String.join(" ", more)));
    }
  }

  static String pageName(CommandSpec spec) {
    return spec.qualifiedName("-");
  }

  /** One command's page in man(7) macros. */
  public static String page(CommandSpec spec, String version, List<String> others) {
    StringBuilder b = new StringBuilder();
    String name = pageName(spec);
    List<String> description = lines(spec.usageMessage().description());
    b.append(".\\\" Generated at build time from the picocli model of ")
        .append(spec.qualifiedName())
        .append("; do not edit.\n");
    b.append(".TH \"")
        .append(name.toUpperCase(Locale.ROOT))
        .append("\" \"1\" \"\" \"strata ")
        .append(version)
        .append("\" \"Strata Manual\"\n");
    b.append(".SH NAME\n")
        .append(esc(name))
        .append(" \\- ")
        .append(esc(firstSentence(description)))
        .append('\n');

    b.append(".SH SYNOPSIS\n.nf\n");
    Help help = new Help(spec, Help.defaultColorScheme(Help.Ansi.OFF));
    for (String l : help.synopsis(0).stripTrailing().split("\n", -1)) {
      b.append(esc(l.stripTrailing())).append('\n');
    }
    b.append(".fi\n");

    if (!description.isEmpty()) {
      b.append(".SH DESCRIPTION\n");
      text(b, description);
    }

    List<OptionSpec> options = visible(spec.options());
    if (!options.isEmpty()) {
      b.append(".SH OPTIONS\n");
      for (OptionSpec o : options) {
        b.append(".TP\n").append(optionLabel(o)).append('\n');
        String def = o.defaultValue();
        boolean showDefault =
            def != null && !o.typeInfo().isBoolean() && !mentionsDefault(o.description());
        item(b, o, showDefault ? "Default: " + def + "." : null);
      }
    }

    List<PositionalParamSpec> params = visible(spec.positionalParameters());
    if (!params.isEmpty()) {
      b.append(".SH ARGUMENTS\n");
      for (PositionalParamSpec p : params) {
        b.append(".TP\n\\fI").append(esc(p.paramLabel())).append("\\fR\n");
        item(b, p, null);
      }
    }

    List<CommandLine> subs = subcommands(spec);
    if (!subs.isEmpty()) {
      b.append(".SH COMMANDS\n");
      for (CommandLine sub : subs) {
        CommandSpec s = sub.getCommandSpec();
        b.append(".TP\n\\fB").append(esc(s.name())).append("\\fR\n");
        text(b, List.of(firstSentence(lines(s.usageMessage().description())) + "."));
        b.append("See \\fB").append(esc(pageName(s))).append("\\fR(1).\n");
      }
    }

    Map<String, String> exits = spec.usageMessage().exitCodeList();
    if (!exits.isEmpty()) {
      b.append(".SH EXIT STATUS\n");
      for (Map.Entry<String, String> e : exits.entrySet()) {
        b.append(".TP\n\\fB").append(esc(e.getKey().strip())).append("\\fR\n");
        text(b, lines(new String[] {e.getValue()}));
      }
    }

    List<String> footer = lines(spec.usageMessage().footer());
    if (!footer.isEmpty()) {
      String heading = format(spec.usageMessage().footerHeading()).strip();
      if (heading.endsWith(":")) {
        heading = heading.substring(0, heading.length() - 1);
      }
      b.append(".SH ")
          .append(heading.isEmpty() ? "NOTES" : esc(heading.toUpperCase(Locale.ROOT)))
          .append('\n');
      text(b, footer);
    }

    b.append(".SH SEE ALSO\n");
    List<String> see = new ArrayList<>();
    if (spec.parent() != null) {
      see.add(pageName(spec.parent()));
    }
    for (CommandLine sub : subs) {
      see.add(pageName(sub.getCommandSpec()));
    }
    if (spec.parent() == null) {
      see.addAll(others);
    }
    for (int i = 0; i < see.size(); i++) {
      b.append("\\fB")
          .append(esc(see.get(i)))
          .append("\\fR(1)")
          .append(i + 1 < see.size() ? ",\n" : "\n");
    }
    if (see.isEmpty()) {
      b.append("The documentation in docs/ of the Strata source tree.\n");
    } else {
      b.append(".PP\nThe documentation in docs/ of the Strata source tree.\n");
    }
    return b.toString();
  }

  private static String optionLabel(OptionSpec o) {
    StringBuilder b = new StringBuilder();
    String[] names = o.names();
    for (int i = 0; i < names.length; i++) {
      if (i > 0) {
        b.append(", ");
      }
      b.append("\\fB").append(esc(names[i])).append("\\fR");
    }
    if (o.arity().max() > 0 && !o.typeInfo().isBoolean()) {
      b.append("=\\fI").append(esc(o.paramLabel())).append("\\fR");
    }
    return b.toString();
  }

  private static boolean mentionsDefault(String[] description) {
    for (String d : description) {
      if (d.contains("Default") || d.contains("default:")) {
        return true;
      }
    }
    return false;
  }

  private static String candidates(Iterable<String> values) {
    if (values == null) {
      return null;
    }
    List<String> all = new ArrayList<>();
    values.forEach(all::add);
    return all.isEmpty() ? null : String.join(", ", all);
  }

  /** Description lines with picocli's format specifiers applied (%n splits, %% is %). */
  static List<String> lines(String[] raw) {
    List<String> out = new ArrayList<>();
    for (String r : raw) {
      String f = format(r);
      out.addAll(List.of(f.split("\\R", -1)));
    }
    while (!out.isEmpty() && out.getLast().isBlank()) {
      out.removeLast();
    }
    while (!out.isEmpty() && out.getFirst().isBlank()) {
      out.removeFirst();
    }
    return out;
  }

  private static String format(String s) {
    try {
      return String.format(Locale.ROOT, s);
    } catch (IllegalFormatException e) {
      return s; // a literal '%' picocli would print as is
    }
  }

  /**
   * Help text into man macros: a blank line is a paragraph break; an indented line is kept as laid
   * out (tables, examples), in no-fill mode; other lines are filled prose.
   */
  static void text(StringBuilder b, List<String> lines) {
    boolean noFill = false;
    for (String l : lines) {
      if (l.isBlank()) {
        if (noFill) {
          b.append(".fi\n");
          noFill = false;
        }
        b.append(".PP\n");
      } else if (Character.isWhitespace(l.charAt(0))) {
        if (!noFill) {
          b.append(".nf\n");
          noFill = true;
        }
        b.append(esc(l.stripTrailing())).append('\n');
      } else {
        if (noFill) {
          b.append(".fi\n");
          noFill = false;
        }
        b.append(esc(l.strip())).append('\n');
      }
    }
    if (noFill) {
      b.append(".fi\n");
    }
  }

  private static String firstSentence(List<String> description) {
    StringBuilder s = new StringBuilder();
    for (String l : description) {
      if (l.isBlank()) {
        break;
      }
      s.append(s.isEmpty() ? "" : " ").append(l.strip());
    }
    String all = s.toString();
    int dot = all.indexOf(". ");
    String first = dot >= 0 ? all.substring(0, dot) : all;
    return first.endsWith(".") ? first.substring(0, first.length() - 1) : first;
  }

  /**
   * Escapes text for groff: a backslash prints as {@code \e}, a minus is {@code \-} (so options
   * copied from the page are real ASCII hyphens), and a line starting with '.' or '\'' is not a
   * request.
   */
  static String esc(String s) {
    String t = s.replace("\\", "\\e").replace("-", "\\-");
    if (t.startsWith(".") || t.startsWith("'")) {
      t = "\\&" + t;
    }
    return t;
  }
}
