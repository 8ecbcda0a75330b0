package dev.strata.launcher.run;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a run's engine said about its memory and speed, collected from its info lines for {@code
 * strata-launch --json} (docs/LAUNCH.md): the {@code alloc: item=NAME bytes=N} lines, and the
 * {@code key=value} fields of the {@code kv:}, {@code decode:}, {@code arena:} and {@code memory:}
 * lines (docs/ENGINE-ABI.md). Lines of other shapes are ignored; numbers stay as the engine wrote
 * them (integers as JSON integers, decimals as JSON numbers). Thread-safe: the engine may log from
 * any thread.
 */
public final class RunSummary {
  private static final Pattern ALLOC = Pattern.compile("alloc: item=([a-z_]+) bytes=(\\d+)");
  private static final Pattern FIELD = Pattern.compile("([a-z_]+)=(\\S+)");
  private static final Pattern INTEGER = Pattern.compile("-?\\d{1,18}");
  private static final Pattern DECIMAL = Pattern.compile("-?\\d{1,18}\\.\\d{1,18}");

  /** The lines whose fields are kept, in the order they are written. */
  static final List<String> SECTIONS = List.of("kv", "decode", "arena", "memory");

  private final List<Map.Entry<String, Long>> alloc = new ArrayList<>();
  private final Map<String, Map<String, String>> sections = new LinkedHashMap<>();

  /** Takes one info line of the engine. */
  public synchronized void line(String text) {
    Matcher a = ALLOC.matcher(text);
    if (a.matches()) {
      alloc.add(Map.entry(a.group(1), Long.parseLong(a.group(2))));
      return;
    }
    int colon = text.indexOf(": ");
    if (colon < 0 || !SECTIONS.contains(text.substring(0, colon))) {
      return;
    }
    Map<String, String> fields =
        sections.computeIfAbsent(text.substring(0, colon), k -> new LinkedHashMap<>());
    Matcher f = FIELD.matcher(text.substring(colon + 2));
    while (f.find()) {
      fields.put(f.group(1), f.group(2));
    }
  }

  /** The fields of one section ({@link #SECTIONS}), empty when the engine did not log it. */
  public synchronized Map<String, String> section(String name) {
    return Map.copyOf(sections.getOrDefault(name, Map.of()));
  }

  /**
   * Writes {@code "alloc": [{item, bytes}…]} and one object per section the engine logged ({@code
   * kv, decode, arena, memory}) into the object {@code g} is inside.
   */
  public synchronized void writeFields(JsonGenerator g) throws IOException {
    g.writeArrayFieldStart("alloc");
    for (Map.Entry<String, Long> e : alloc) {
      g.writeStartObject();
      g.writeStringField("item", e.getKey());
      g.writeNumberField("bytes", e.getValue());
      g.writeEndObject();
    }
    g.writeEndArray();
    for (String s : SECTIONS) {
      Map<String, String> fields = sections.get(s);
      if (fields == null) {
        continue;
      }
      g.writeObjectFieldStart(s);
      for (Map.Entry<String, String> f : fields.entrySet()) {
        writeValue(g, f.getKey(), f.getValue());
      }
      g.writeEndObject();
    }
  }

  /**
   * {@code "key": value} of an engine's {@code key=value} word: integers as JSON integers, decimals
   * as JSON numbers as written, anything else as a string.
   */
  static void writeValue(JsonGenerator g, String key, String v) throws IOException {
    if (INTEGER.matcher(v).matches()) {
      g.writeNumberField(key, Long.parseLong(v));
    } else if (DECIMAL.matcher(v).matches()) {
      g.writeFieldName(key);
      g.writeNumber(new java.math.BigDecimal(v));
    } else {
      g.writeStringField(key, v);
    }
  }

  /**
   * {@code "generation": {...}} of {@code r} into the object {@code g} is inside: text, token
   * counts, timings, stop reason, the sampling options with the seed, the engine's stats.
   */
  public static void writeGeneration(JsonGenerator g, Generation.Result r, Generation.Options o)
      throws IOException {
    g.writeObjectFieldStart("generation");
    g.writeStringField("text", r.text());
    g.writeObjectFieldStart("tokens");
    g.writeNumberField("prompt", r.promptTokens());
    g.writeNumberField("generated", r.generatedTokens());
    g.writeEndObject();
    g.writeStringField("stop", r.stop().word());
    g.writeObjectFieldStart("sampling");
    g.writeNumberField("n_predict", o.nPredict());
    g.writeNumberField("temp", o.temp());
    g.writeNumberField("top_k", o.topK());
    g.writeNumberField("top_p", o.topP());
    // unsigned: the seed as typed (or drawn), 0..2^64-1
    g.writeFieldName("seed");
    g.writeNumber(new java.math.BigInteger(Long.toUnsignedString(o.seed())));
    g.writeEndObject();
    g.writeObjectFieldStart("prefill");
    g.writeNumberField("tokens", r.promptTokens());
    g.writeNumberField("seconds", round(r.prefillSeconds()));
    g.writeNumberField("tok_s", round(r.prefillTokS()));
    g.writeEndObject();
    g.writeObjectFieldStart("decode");
    g.writeNumberField("tokens", r.generatedTokens());
    g.writeNumberField("seconds", round(r.decodeSeconds()));
    g.writeNumberField("tok_s", round(r.decodeTokS()));
    g.writeEndObject();
    g.writeObjectFieldStart("stats");
    for (Map.Entry<String, String> e : r.stats().entrySet()) {
      RunSummary.writeValue(g, e.getKey(), e.getValue());
    }
    g.writeEndObject();
    g.writeEndObject();
  }

  private static double round(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }
}
