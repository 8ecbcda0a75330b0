package dev.strata.setup.measure;

import dev.strata.engine.ExitCodes;
import dev.strata.engine.IoReason;
import dev.strata.engine.Sha256;
import dev.strata.engine.StrataException;
import dev.strata.engine.ffm.NativeEngine;
import dev.strata.engine.ffm.VerifiedLibrary;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.quality.Evaluation;
import dev.strata.engine.quality.KlStats;
import dev.strata.engine.quality.QualitySpec;
import dev.strata.engine.quality.Report;
import dev.strata.engine.text.TerminalText;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Measures one model's KV trade-off on this machine for {@code strata-setup} (docs/SETUP.md
 * "Measuring the KV trade-off"): a bounded {@link Evaluation} — the harness of {@code
 * strata-quality} — of the formats the KV question offers against fp16 KV, over {@link #TEXT_NAME}
 * tokenized by the model's own tokenizer, through an engine library opened with a launch's checks
 * ({@link VerifiedLibrary}); the result is kept in the {@link KvMeasureCache}. It writes no config.
 */
public final class KvMeasure {
  /** The text measured on, bundled with setup (the shared validation text is not shipped). */
  public static final String TEXT_RESOURCE = "gpl-3.0.txt";

  /**
   * What the text is, as shown: English legal prose anyone may copy verbatim, fixed (its sha256 is
   * in the key), so a figure is reproducible with {@code strata-quality --text} or llama-perplexity
   * on the same file. It is not the user's own prompts: the figures say what the KV format costs on
   * ordinary English prose at this context, not on code or chat.
   */
  public static final String TEXT_NAME = "the GNU GPL v3 text";

  /**
   * CPU-seconds per evaluated token per byte of weights: strata-ref's rate measured by
   * docs/KV-QUALITY.md "Speed of a measurement" (16 chunks × 3 formats + the decode check on
   * tiny-qwen3-q8_0, 29,830,464 bytes: 124.7 CPU-s for ~50,100 tokens). An estimate to say first,
   * not a promise: progress lines give the real pace.
   */
  static final double CPU_SECONDS_PER_TOKEN_BYTE = 124.7 / (50_127.0 * 29_830_464.0);

  /**
   * How much is measured: chunks of {@code ctx} tokens (capped at the model's trained context).
   * Defaults 512 and 4 (4 × 255 = 1,020 positions scored per format); {@code STRATA_MEASURE_KV_CTX}
   * / {@code STRATA_MEASURE_KV_CHUNKS} override them.
   */
  public record Plan(int ctx, int chunks) {
    public static final Plan DEFAULT = new Plan(512, 4);

    /** The plan the environment asks for; exit 2 with one line for a bad value. */
    public static Plan of(Map<String, String> env) {
      return new Plan(
          number(env, "STRATA_MEASURE_KV_CTX", DEFAULT.ctx(), 16, 1 << 16),
          number(env, "STRATA_MEASURE_KV_CHUNKS", DEFAULT.chunks(), 1, 256));
    }

    private static int number(Map<String, String> env, String name, int def, int min, int max) {
      String v = env.get(name);
      if (v == null || v.isBlank()) {
        return def;
      }
      try {
        int n = Integer.parseInt(v.strip());
        if (n >= min && n <= max) {
          return n;
        }
      } catch (NumberFormatException e) {
        // said below
      }
      throw new StrataException(
          ExitCodes.USAGE,
          name
              + "="
              + TerminalText.escape(v)
              + ": give a whole number "
              + min
              + ".."
              + max
              + " (or unset it)");
    }
  }

  /**
   * Chunks of 512 tokens the bundled text surely fills: 35,149 bytes / (8 × 512) = 8.6 bytes per
   * token, more than any English BPE tokenizer averages (about 4; the demo model's 8,192-token
   * vocabulary makes 18 chunks of it). A plan asking for more says "up to".
   */
  static final int TEXT_FILLS_CHUNKS = 8;

  /** How a measurement ended. */
  public sealed interface Outcome {
    /** Measured (and cached when the cache allowed it). */
    record Measured(KvMeasurement measurement) implements Outcome {}

    /** Ctrl-C: nothing cached. */
    record Cancelled() implements Outcome {}

    /**
     * It could not run: one line (no prefix) and the exit code {@code --measure-kv} returns (2 the
     * model or the text, 3 the engine library or the engine refused).
     */
    record Failed(int exitCode, String line) implements Outcome {}
  }

  private final KvMeasureCache cache;
  private final Path library;
  private final Plan plan;
  private final Consumer<String> say;
  private String engineName;

  /**
   * @param library the engine library measured with (strata-ref, or the config's when it runs here)
   * @param say progress and notes, one line each (no prefix)
   */
  public KvMeasure(KvMeasureCache cache, Path library, Plan plan, Consumer<String> say) {
    this.cache = cache;
    this.library = library;
    this.plan = plan;
    this.say = say;
  }

  /** The bundled text. */
  static String text() {
    try (InputStream in = KvMeasure.class.getResourceAsStream(TEXT_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("setup's " + TEXT_RESOURCE + " is missing from its jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read setup's " + TEXT_RESOURCE, e);
    }
  }

  /** The text's name as shown and cached: what it is, its file and size. */
  static String textLabel(String text) {
    return String.format(
        Locale.ROOT,
        "%s (%s, %,d bytes)",
        TEXT_NAME,
        TEXT_RESOURCE,
        text.getBytes(StandardCharsets.UTF_8).length);
  }

  /** The engine's {@code strata_engine_name()}: loads the library once (a launch's checks). */
  String engineName() {
    if (engineName == null) {
      try (VerifiedLibrary v = VerifiedLibrary.open(library, null, null)) {
        NativeEngine e = v.load();
        try {
          engineName = e.name();
        } finally {
          e.close();
        }
      }
    }
    return engineName;
  }

  /**
   * The cache key for {@code model}: its shards' sha256, the engine's name, the text's sha256.
   *
   * @param read false: only hashes remembered for the shards' current identity (path, size, mtime,
   *     file key) are used, the model is not read — empty when one is not known, so a lookup never
   *     reads a large model (a measurement remembers them); true: a shard not remembered is read
   * @throws IOException when a shard cannot be read
   * @throws StrataException (exit 3) when the library fails a launch's checks
   */
  Optional<KvMeasurement.Key> key(GgufModel model, boolean read) throws IOException {
    List<String> shards = new ArrayList<>();
    for (GgufModel.Shard s : model.shards()) {
      Optional<String> h = shardSha256(s.path(), read);
      if (h.isEmpty()) {
        return Optional.empty();
      }
      shards.add(h.get());
    }
    String text = text();
    return Optional.of(
        new KvMeasurement.Key(
            shards,
            engineName(),
            textLabel(text),
            Sha256.hex(text.getBytes(StandardCharsets.UTF_8))));
  }

  private Optional<String> shardSha256(Path shard, boolean read) throws IOException {
    Path real = shard.toRealPath();
    BasicFileAttributes a = Files.readAttributes(real, BasicFileAttributes.class);
    String identity =
        real + "\0" + a.size() + "\0" + a.lastModifiedTime().toInstant() + "\0" + a.fileKey();
    Optional<String> known = cache.shardHash(identity);
    if (known.isPresent() || !read) {
      return known;
    }
    String h;
    try (InputStream in = Files.newInputStream(real)) {
      h = Sha256.hex(in);
    }
    cache.rememberShardHash(identity, h);
    return Optional.of(h);
  }

  /** What the cache holds for {@code model}, or empty (also when the model or library fails). */
  public Optional<KvMeasurement> cached(GgufModel model) {
    try {
      return key(model, false).flatMap(cache::find);
    } catch (IOException | StrataException e) {
      return Optional.empty(); // measuring says why, when asked
    }
  }

  /** Sessions evaluated: the fp16 reference and each format that is not it. */
  static int sessions(List<KvFormat> formats) {
    return 1 + (int) formats.stream().filter(f -> f != KvFormat.FP16).count();
  }

  /** Chunk size for this model: the plan's, at most its trained context. */
  int ctx(GgufModel model) {
    long trained = model.geometry().trainedContext();
    return (int) (trained > 0 ? Math.min(plan.ctx(), trained) : plan.ctx());
  }

  /** The expected wall time in seconds, from the model's bytes and this machine's cores. */
  public double estimateSeconds(GgufModel model, List<KvFormat> formats) {
    double tokens = (double) plan.chunks() * (ctx(model) - 1) * sessions(formats);
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    return tokens * model.fileBytes() * CPU_SECONDS_PER_TOKEN_BYTE / threads;
  }

  /** One line saying what the measurement will do and how long it should take. */
  public String announce(GgufModel model, List<KvFormat> formats) {
    return String.format(
        Locale.ROOT,
        "measuring %s against fp16 KV: %s%d chunks of %,d tokens of %s, with %s; expected about %s"
            + " on idle cores (%s of weights, %d cores; Ctrl-C stops it)",
        Evaluation.names(formats),
        plan.chunks() > TEXT_FILLS_CHUNKS ? "up to " : "",
        plan.chunks(),
        ctx(model),
        TEXT_NAME,
        TerminalText.escape(library.getFileName().toString()),
        seconds(estimateSeconds(model, formats)),
        dev.strata.engine.text.ByteSize.iec(model.fileBytes()),
        Runtime.getRuntime().availableProcessors());
  }

  /** A duration as said before a measurement: "7 s", "3 min". */
  public static String seconds(double s) {
    return s < 90 ? Math.max(1, Math.round(s)) + " s" : Math.round(s / 60) + " min";
  }

  /**
   * Measures {@code formats} against fp16 KV and caches the result.
   *
   * @param trap installs a Ctrl-C handler calling its argument for the measurement's duration; the
   *     returned handle removes it
   */
  public Outcome measure(
      GgufModel model, List<KvFormat> formats, Function<Runnable, AutoCloseable> trap) {
    say.accept(announce(model, formats));
    List<String> engineLines = new ArrayList<>();
    Evaluation ev =
        new Evaluation(
            new QualitySpec(
                model.firstShard(),
                library,
                null,
                null,
                new QualitySpec.Input.Text(textLabel(text()), text()),
                null,
                formats,
                ctx(model),
                plan.chunks(),
                null,
                0,
                Map.of()),
            Evaluation.Listener.of(line -> say.accept("  " + line), engineLines::add));
    Evaluation.Outcome out;
    AutoCloseable t = trap.apply(ev::cancel);
    try {
      out = ev.run();
    } catch (StrataException e) {
      String why = engineLines.isEmpty() ? e.getMessage() : engineLines.getLast();
      boolean input = e.exitCode() == ExitCodes.USAGE; // the model's file, not the engine
      return new Outcome.Failed(
          input ? ExitCodes.USAGE : ExitCodes.PREFLIGHT,
          (input ? "cannot read the model: " : "the engine could not measure this model: ")
              + TerminalText.escape(why));
    } catch (IOException | RuntimeException e) {
      return new Outcome.Failed(
          ExitCodes.USAGE,
          "cannot measure this model: "
              + TerminalText.escape(
                  e instanceof IOException io ? IoReason.of(io) : String.valueOf(e.getMessage())));
    } finally {
      try {
        t.close();
      } catch (Exception e) {
        // putting the previous handler back cannot fail in a way the user could act on
      }
    }
    if (out.interrupted()) {
      return new Outcome.Cancelled();
    }
    KvMeasurement.Key key;
    try {
      key = key(model, true).orElseThrow(); // after the engine took the model: it is a model
    } catch (IOException e) {
      return new Outcome.Failed(
          ExitCodes.USAGE,
          "cannot read the model "
              + TerminalText.escape(model.firstShard().toString())
              + " to key its measurement: "
              + IoReason.of(e));
    }
    KvMeasurement m = of(key, out.report());
    cache.store(m);
    return new Outcome.Measured(m);
  }

  /**
   * Ctrl-C (SIGINT) calls {@code onInterrupt} instead of stopping the process, until the handle is
   * closed (the previous handler is put back). Through JLine's {@code Signals}, which wraps {@code
   * sun.misc.Signal}: outside a line read the terminal delivers ^C as SIGINT.
   */
  public static AutoCloseable sigint(Runnable onInterrupt) {
    Object previous = org.jline.utils.Signals.register("INT", onInterrupt);
    return () -> org.jline.utils.Signals.unregister("INT", previous);
  }

  static KvMeasurement of(KvMeasurement.Key key, Report r) {
    Map<KvFormat, KvMeasurement.Figures> figures = new LinkedHashMap<>();
    double pplRef = Double.NaN;
    int positions = 0;
    for (Map.Entry<KvFormat, KlStats> e : r.formats().entrySet()) {
      KlStats.Summary s = e.getValue().summary();
      figures.put(e.getKey(), KvMeasurement.Figures.of(s));
      pplRef = s.pplBase();
      positions = s.positions();
    }
    return new KvMeasurement(
        key,
        r.nCtx(),
        r.chunksDone(),
        positions,
        Math.round(r.seconds() * 10) / 10.0,
        Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString(),
        pplRef,
        figures);
  }
}
