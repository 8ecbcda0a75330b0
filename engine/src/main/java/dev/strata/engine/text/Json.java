package dev.strata.engine.text;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * The one way the toolkit writes JSON (the host JSON, the plan, the launcher's dry run): Jackson's
 * streaming generator, never hand-made text, in one layout — two-space indent, {@code "key":
 * value}, one array item a line, {@code []} and {@code {}} when empty, a trailing newline. Parts of
 * a document are written into the same generator (a plan inside the dry run), never re-parsed. Only
 * jackson-core is loaded (no databind).
 */
public final class Json {
  private Json() {}

  /** What a writer puts into the generator. */
  public interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  /** Built on first use: a command that writes no JSON does not load Jackson. */
  private static final class Factories {
    static final JsonFactory UTF8 = new JsonFactory();
    static final JsonFactory ASCII =
        JsonFactory.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();
  }

  /** {@code "field": [ "a", "b", … ]}: a field holding an array of strings. */
  public static void strings(JsonGenerator g, String field, Iterable<String> items)
      throws IOException {
    g.writeArrayFieldStart(field);
    for (String s : items) {
      g.writeString(s);
    }
    g.writeEndArray();
  }

  /** The layout: DefaultPrettyPrinter with the toolkit's separators. */
  public static DefaultPrettyPrinter pretty() {
    DefaultIndenter lines = new DefaultIndenter("  ", "\n");
    return new DefaultPrettyPrinter(
            Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("")
                .withArrayEmptySeparator(""))
        .withObjectIndenter(lines)
        .withArrayIndenter(lines);
  }

  /**
   * One JSON document as text, ending in a newline.
   *
   * @param asciiOnly escape every non-ASCII character as {@code \\uXXXX}
   */
  public static String write(boolean asciiOnly, Body body) {
    StringWriter out = new StringWriter(1024);
    try (JsonGenerator g = (asciiOnly ? Factories.ASCII : Factories.UTF8).createGenerator(out)) {
      g.setPrettyPrinter(pretty());
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return out.append('\n').toString();
  }
}
