package dev.strata.engine.config;

import dev.strata.engine.config.YamlReader.Entry;
import dev.strata.engine.config.YamlReader.Kind;
import dev.strata.engine.config.YamlReader.MapNode;
import dev.strata.engine.config.YamlReader.Node;
import dev.strata.engine.config.YamlReader.Pos;
import dev.strata.engine.config.YamlReader.Scalar;
import dev.strata.engine.config.YamlReader.SeqNode;
import dev.strata.engine.text.Clip;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The typed reads of one node of {@link YamlReader}'s tree (a mapping, a list, text, a whole
 * number, a boolean), each refusal a {@link ConfigException} at the node's line and column that
 * says what was expected and what was found ("expected text, found the number 3 (quote it, '3', if
 * you mean the text)"). The config's structure (which keys, where) is {@link ConfigReader}'s.
 */
abstract class NodeReads {
  private static final Pattern DECIMAL = Pattern.compile("-?(0|[1-9][0-9]*)");

  /** The file's name in messages. */
  final String source;

  NodeReads(String source) {
    this.source = source;
  }

  ConfigException error(Pos pos, String detail) {
    return new ConfigException(source, pos.line(), pos.column(), detail);
  }

  MapNode map(Entry e, String path) {
    if (e.value() instanceof MapNode m) {
      return m;
    }
    throw error(
        e.value().pos(),
        path + ": expected a mapping (keys indented under it), found " + found(e.value()));
  }

  List<Node> list(Node n, String path) {
    if (n instanceof SeqNode s) {
      return s.items();
    }
    throw error(n.pos(), path + ": expected a list (one '- item' per line), found " + found(n));
  }

  String string(Node n, String path) {
    if (n instanceof Scalar s && s.kind() == Kind.STRING) {
      return s.text();
    }
    throw error(n.pos(), path + ": expected text, found " + found(n) + quoteHint(n));
  }

  /**
   * An args item or env value: text. A number written without quotes is taken as written ({@code -
   * 32768} is {@code '32768'}): argv is text either way. true/false/null are refused: the engine
   * would get a word the author may not have meant.
   */
  String argText(Node n, String path) {
    if (n instanceof Scalar s
        && (s.kind() == Kind.STRING || s.kind() == Kind.INT || s.kind() == Kind.FLOAT)) {
      return s.text();
    }
    throw error(n.pos(), path + ": expected text, found " + found(n) + quoteHint(n));
  }

  long integer(Node n, String path) {
    if (n instanceof Scalar s && s.kind() == Kind.INT && DECIMAL.matcher(s.text()).matches()) {
      try {
        return Long.parseLong(s.text());
      } catch (NumberFormatException e) {
        throw error(
            n.pos(), path + ": " + Clip.clip(s.text()) + " is out of range (at most 2^63-1)");
      }
    }
    throw error(n.pos(), path + ": expected a whole number in decimal, found " + found(n));
  }

  boolean bool(Node n, String path) {
    if (n instanceof Scalar s && (s.text().equals("true") || s.text().equals("false"))) {
      if (s.kind() == Kind.BOOL) {
        return s.text().equals("true");
      }
    }
    throw error(n.pos(), path + ": expected true or false, found " + found(n));
  }

  private static String quoteHint(Node n) {
    if (n instanceof Scalar s && !s.text().isEmpty() && s.kind() != Kind.STRING) {
      return " (quote it, '" + Clip.clip(s.text()) + "', if you mean the text)";
    }
    return "";
  }

  static String found(Node n) {
    return switch (n) {
      case MapNode m -> "a mapping";
      case SeqNode s -> "a list";
      case Scalar s ->
          switch (s.kind()) {
            case STRING ->
                s.text().isEmpty() ? "nothing" : "the text '" + Clip.clip(s.text()) + "'";
            case INT, FLOAT -> "the number " + Clip.clip(s.text());
            case BOOL -> "the boolean " + Clip.clip(s.text());
            case NULL -> s.text().isEmpty() ? "nothing" : "nothing (null)";
          };
    };
  }
}
