package dev.strata.engine.host;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.strata.engine.flags.Suggest;
import dev.strata.engine.text.Clip;
import dev.strata.engine.text.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and writes the host JSON (docs/PROBE.md) strictly: exactly the eleven fields of {@link
 * HostFacts}, each of its own JSON type (no string for a number, no float for an integer, no number
 * for a boolean), each value possible for a real machine. Anything else is a {@link
 * HostFileException} whose one-line message names the file, the position and the field.
 *
 * <p>It walks Jackson's token stream itself rather than binding through databind: that is what lets
 * every error carry the field name and the {@code line:col} of the offending token, and it refuses
 * nesting, duplicates and coercions by construction instead of by a list of feature flags.
 *
 * <p>Writing is canonical: the record's field order, two-space indent, {@code "key": value}, a
 * trailing newline; {@code read(write(x)).equals(x)} and {@code write(read(t)).equals(t)} for
 * canonical text {@code t}.
 */
public final class HostFactsCodec {
  /** A host file larger than this is refused before it is parsed. */
  public static final int MAX_BYTES = 64 * 1024;

  /** The JSON names in record (and output) order: {@link HostKeys#names()}. */
  public static final List<String> FIELDS = HostKeys.names();

  /** What a field's value must be, by the component's type. */
  private static String expected(Class<?> type) {
    return type == String.class
        ? "a string"
        : type == boolean.class ? "true or false" : "an integer";
  }

  /** Jackson's parser, set up on first read only (the probe calls {@link #check} on every run). */
  private static final class Jackson {
    static final JsonFactory JSON = new JsonFactory();
  }

  private HostFactsCodec() {}

  /**
   * Reads a host file. The message of every failure starts with {@code file} as given.
   *
   * @throws HostFileException when the file is missing, not a regular file, larger than {@link
   *     #MAX_BYTES}, empty, not JSON, or not a valid host object
   */
  public static HostFacts read(Path file) {
    String source = file.toString();
    if (Files.isDirectory(file)) {
      throw new HostFileException(source + ": is a folder, not a host JSON file", null);
    }
    if (!Files.exists(file)) {
      throw new HostFileException(source + ": no such file", null);
    }
    String kind = dev.strata.engine.FileKind.isNotRegular(file);
    if (kind != null) {
      // named for what it is, and never opened (a FIFO would block the read)
      throw new HostFileException(source + ": " + kind, null);
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      // Read one byte past the limit instead of trusting size(): the file may grow meanwhile.
      bytes = in.readNBytes(MAX_BYTES + 1);
    } catch (AccessDeniedException e) {
      throw new HostFileException(source + ": permission denied", null);
    } catch (NoSuchFileException e) {
      throw new HostFileException(source + ": no such file", null);
    } catch (IOException e) {
      throw new HostFileException(source + ": cannot read: " + oneLine(e.getMessage()), null);
    }
    if (bytes.length > MAX_BYTES) {
      throw new HostFileException(
          source + ": larger than " + MAX_BYTES + " bytes; a host file is a small JSON object",
          null);
    }
    return parse(bytes, null, source);
  }

  /**
   * Reads host JSON from text; {@code source} names it in messages (a file name, "--host-file",
   * "config host").
   */
  public static HostFacts read(String json, String source) {
    if (json.length() > MAX_BYTES) {
      throw new HostFileException(
          source + ": larger than " + MAX_BYTES + " bytes; a host file is a small JSON object",
          null);
    }
    return parse(null, json, source);
  }

  /** The canonical host JSON of {@code facts}, ending in a newline. */
  public static String write(HostFacts facts) {
    return Json.write(
        false,
        g -> {
          g.writeStartObject();
          for (HostKeys.Key k : HostKeys.KEYS) {
            g.writeFieldName(k.key());
            switch (HostKeys.value(k, facts)) {
              case String v -> g.writeString(v);
              case Boolean v -> g.writeBoolean(v);
              case Integer v -> g.writeNumber(v);
              case Long v -> g.writeNumber(v);
              default -> throw new IllegalStateException("HostFacts." + k.key());
            }
          }
          g.writeEndObject();
        });
  }

  /**
   * Checks that {@code facts} could describe a real machine (the value rules of the host JSON):
   * {@code os} macos or linux; CPU counts from 1, performance + efficiency ≤ CPUs; memory above 0
   * and at most 16 TiB; {@code gpu_family} 0 or 1001–1010; {@code k4} exactly when the family is
   * Apple10; Metal 4 only from Apple7 (M1) on; nothing GPU-related on Linux.
   *
   * @throws HostFileException naming {@code source} and the field at fault
   */
  public static void check(HostFacts facts, String source) {
    HostFactsRules.check(facts, source, Map.of());
  }

  private static HostFacts parse(byte[] bytes, String text, String source) {
    Map<String, Object> values = new HashMap<>();
    Map<String, String> where = new HashMap<>();
    JsonParser p;
    try {
      p = bytes != null ? Jackson.JSON.createParser(bytes) : Jackson.JSON.createParser(text);
    } catch (IOException e) {
      throw new HostFileException(source + ": cannot read: " + oneLine(e.getMessage()), null);
    }
    try (p) {
      JsonToken t = p.nextToken();
      if (t == null) {
        throw new HostFileException(
            source + ": is empty; expected a host JSON object (see 'strata-setup probe --json')",
            null);
      }
      if (t != JsonToken.START_OBJECT) {
        throw fail(source, p.currentTokenLocation(), null, "expected a JSON object, got " + got(p));
      }
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonLocation at = p.currentTokenLocation();
        HostKeys.Key key = HostKeys.named(name);
        if (key == null) {
          throw fail(source, at, name, unknownField(name));
        }
        if (values.containsKey(name)) {
          throw fail(source, at, name, "duplicate field '" + name + "'");
        }
        p.nextToken();
        where.put(name, position(p.currentTokenLocation()));
        values.put(name, value(p, name, key.type(), source));
      }
      if (p.nextToken() != null) {
        throw fail(
            source, p.currentTokenLocation(), null, "unexpected content after the host object");
      }
    } catch (HostFileException e) {
      throw e;
    } catch (JsonProcessingException e) {
      // a limit of the parser's (a number's length) carries no location: the parser has it
      JsonLocation at = e.getLocation() != null ? e.getLocation() : p.currentTokenLocation();
      throw fail(source, at, null, "not valid JSON: " + oneLine(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new HostFileException(source + ": cannot read: " + oneLine(e.getMessage()), null);
    }
    List<String> missing = new ArrayList<>();
    for (String f : FIELDS) {
      if (!values.containsKey(f)) {
        missing.add("'" + f + "'");
      }
    }
    if (!missing.isEmpty()) {
      String first = missing.getFirst().replace("'", "");
      throw new HostFileException(
          source
              + ": missing field"
              + (missing.size() > 1 ? "s " : " ")
              + String.join(", ", missing)
              + " (a host file has all of: "
              + String.join(", ", FIELDS)
              + ")",
          first);
    }
    HostFacts facts = HostKeys.create(FIELDS.stream().map(values::get).toArray());
    HostFactsRules.check(facts, source, where);
    return facts;
  }

  private static Object value(JsonParser p, String name, Class<?> type, String source)
      throws IOException {
    JsonToken t = p.currentToken();
    JsonLocation at = p.currentTokenLocation();
    if (type == String.class) {
      if (t == JsonToken.VALUE_STRING) {
        return p.getText();
      }
    } else if (type == boolean.class) {
      if (t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE) {
        return t == JsonToken.VALUE_TRUE;
      }
    } else if (t == JsonToken.VALUE_NUMBER_INT) {
      JsonParser.NumberType nt = p.getNumberType();
      if (nt == JsonParser.NumberType.INT) {
        return type == int.class ? (Object) p.getIntValue() : (Object) p.getLongValue();
      }
      if (nt == JsonParser.NumberType.LONG && type == long.class) {
        return p.getLongValue();
      }
      throw fail(
          source,
          at,
          name,
          "field '"
              + name
              + "' is out of range: "
              + Clip.clip(p.getText())
              + (type == int.class ? " (at most 2147483647)" : " (at most 2^63-1)"));
    }
    throw fail(
        source, at, name, "field '" + name + "' must be " + expected(type) + ", got " + got(p));
  }

  private static HostFileException fail(
      String source, JsonLocation at, String field, String message) {
    return new HostFileException(source + position(at) + ": " + message, field);
  }

  /** ":line:col" (or ":line"), or "" when the parser does not know. */
  private static String position(JsonLocation at) {
    if (at == null || at.getLineNr() <= 0) {
      return "";
    }
    return ":" + at.getLineNr() + (at.getColumnNr() > 0 ? ":" + at.getColumnNr() : "");
  }

  private static String unknownField(String name) {
    return "unknown field '"
        + Clip.clip(name)
        + "'"
        + Suggest.didYouMean(name, FIELDS)
        + " (known: "
        + String.join(", ", FIELDS)
        + ")";
  }

  private static String got(JsonParser p) throws IOException {
    JsonToken t = p.currentToken();
    return switch (t) {
      case VALUE_STRING -> "a string \"" + Clip.clip(p.getText()) + "\"";
      case VALUE_NUMBER_INT -> "the number " + Clip.clip(p.getText());
      case VALUE_NUMBER_FLOAT -> "the non-integer number " + Clip.clip(p.getText());
      case VALUE_TRUE, VALUE_FALSE -> "the boolean " + p.getText();
      case VALUE_NULL -> "null";
      case START_OBJECT -> "an object";
      case START_ARRAY -> "an array";
      default -> String.valueOf(t);
    };
  }

  private static String oneLine(String s) {
    if (s == null) {
      return "unknown error";
    }
    // Jackson's texts name its own switches ("enable JsonReadFeature...") and limits
    // (StreamReadConstraints): those mean nothing to someone fixing a host file, so they are cut or
    // said in the file's terms.
    return Clip.oneLine(
        s.replaceAll(
                "\\s*\\(not recognized as one since Feature '\\w+' not enabled for parser\\)", "")
            .replaceAll(": enable `JsonReadFeature\\.\\w+` to allow", "")
            .replaceAll(
                "Number value length \\((\\d+)\\) exceeds the maximum allowed \\((\\d+), from `[^`]*`\\)",
                "a number of $1 digits (at most $2)")
            .replaceAll(
                "Illegal unquoted character \\(\\(CTRL-CHAR, code (\\d+)\\)\\): has to be escaped"
                    + " using backslash to be included in string value",
                "a raw control character (code $1) inside a string: write it escaped (\\\\t,"
                    + " \\\\n, \\\\uXXXX)"));
  }
}
