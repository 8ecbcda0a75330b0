package dev.strata.setup.measure;

import dev.strata.engine.Sha256;
import dev.strata.engine.StrataException;
import dev.strata.engine.gen.StrictYaml;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.text.TerminalText;
import dev.strata.engine.trust.OutputPlace;
import dev.strata.engine.trust.TrustedPath;
import dev.strata.engine.write.ConfigPaths;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The KV measurements of this user's models (docs/SETUP.md "Measuring the KV trade-off"): one YAML
 * file per {@link KvMeasurement.Key} in {@code <cache>/kv-quality/}, the cache being {@code
 * $XDG_CACHE_HOME/strata} or {@code ~/.cache/strata} (Linux and the rest), {@code
 * ~/Library/Caches/Strata} (macOS; never run on a Mac here). The file's name is the sha256 of the
 * key; its content repeats the key, and an entry whose key differs is not used.
 *
 * <p>A cached figure changes what the wizard shows, so the cache is read as a launch reads what
 * decides what runs ({@link TrustedPath#open}): a file, folder or link on the way owned by another
 * user (not root) or writable by group or others is ignored with one line ({@code warn}), never
 * trusted. Writes go through {@link OutputPlace} (folders {@code rwxr-xr-x}, the rule checked again
 * once they exist, a new file {@code O_EXCL|O_NOFOLLOW}) into a {@code .partial} file renamed over
 * the entry: a reader never sees half an entry, an interrupted write leaves none.
 */
public final class KvMeasureCache {
  static final String FORMAT = "strata-kv-measurement 1";
  static final Set<String> KEYS =
      Set.of(
          "format",
          "model_sha256",
          "engine",
          "text",
          "text_sha256",
          "n_ctx",
          "chunks",
          "positions",
          "seconds",
          "measured_at",
          "ppl_fp16",
          "formats");
  static final List<String> FIGURES = List.of("ppl", "mean_kl", "same_top", "rms_dp");

  private final Path dir;
  private final Consumer<String> warn;

  /**
   * @param dir the folder of the entries ({@link #folder})
   * @param warn one line for an entry ignored or not written (no prefix)
   */
  public KvMeasureCache(Path dir, Consumer<String> warn) {
    this.dir = dir;
    this.warn = warn;
  }

  /**
   * The entries' folder for this environment and OS: {@code kv-quality/} in the user's cache folder
   * ({@link ConfigPaths#cacheFolder}, the demo's and the Mac probe's), or null without a usable
   * HOME.
   */
  public static Path folder(Map<String, String> env, String osName) {
    return ConfigPaths.cacheFolder(env, osName).map(c -> c.resolve("kv-quality")).orElse(null);
  }

  public Path dir() {
    return dir;
  }

  /** The entry's file for {@code key}. */
  Path file(KvMeasurement.Key key) {
    String id =
        String.join("\n", key.modelSha256()) + "\n" + key.engine() + "\n" + key.textSha256();
    return dir.resolve(Sha256.hex(id.getBytes(StandardCharsets.UTF_8)) + ".yaml");
  }

  /** The measurement cached for {@code key}; empty when none, or when it is ignored (one line). */
  public Optional<KvMeasurement> find(KvMeasurement.Key key) {
    Path f = file(key);
    Optional<byte[]> bytes = readTrusted(f);
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    try {
      KvMeasurement m = parse(new String(bytes.get(), StandardCharsets.UTF_8), f.toString());
      return m.key().equals(key) ? Optional.of(m) : Optional.empty();
    } catch (RuntimeException e) { // StrictYaml's refusal, a number that is not one, a key absent
      warn.accept("ignored " + TerminalText.escape(f.toString()) + ": not an entry of this cache");
      return Optional.empty();
    }
  }

  /**
   * The sha256 remembered for a shard with this identity (its real path, size, modification time
   * and file key: any change to the file is a new identity), or empty.
   */
  Optional<String> shardHash(String identity) {
    return readTrusted(shardFile(identity))
        .map(b -> new String(b, StandardCharsets.US_ASCII).strip())
        .filter(h -> h.matches("[0-9a-f]{64}"));
  }

  /** Remembers a shard's sha256 (so a later lookup need not read a large model again). */
  void rememberShardHash(String identity, String sha256) {
    write(shardFile(identity), sha256 + "\n");
  }

  private Path shardFile(String identity) {
    return dir.resolve("shards")
        .resolve(Sha256.hex(identity.getBytes(StandardCharsets.UTF_8)) + ".sha256");
  }

  /** The file's bytes when it passes the ownership rule; empty when absent or ignored (a line). */
  private Optional<byte[]> readTrusted(Path f) {
    try (TrustedPath.OpenFile o =
        TrustedPath.open(
            f, new TrustedPath.Subject("cached KV measurement", null), TrustedPath.me())) {
      if (o.stat().size() > StrictYaml.MAX_CHARS) {
        warn.accept("ignored " + TerminalText.escape(f.toString()) + ": too large for an entry");
        return Optional.empty();
      }
      return Optional.of(o.readAll());
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (StrataException e) { // TrustRefused: another user's, or writable by others
      warn.accept("ignored the cached KV measurement: " + TerminalText.escape(e.getMessage()));
      return Optional.empty();
    } catch (IOException e) {
      warn.accept(
          "ignored " + TerminalText.escape(f.toString()) + ": " + dev.strata.engine.IoReason.of(e));
      return Optional.empty();
    }
  }

  /**
   * Writes {@code m} as its key's entry, atomically; on failure says one line and returns false
   * (the measurement is still shown, only not kept).
   */
  public boolean store(KvMeasurement m) {
    return write(file(m.key()), yaml(m));
  }

  private boolean write(Path f, String text) {
    Path partial = f.resolveSibling(f.getFileName() + ".partial");
    try {
      TrustedPath.Subject subject = TrustedPath.Subject.output("KV measurement cache", null);
      OutputPlace.prepare(f, subject);
      try (FileChannel ch = OutputPlace.createNew(partial, subject)) {
        ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
          ch.write(b);
        }
        ch.force(true);
      }
      try {
        Files.move(partial, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("this file system cannot rename atomically", e);
      }
      return true;
    } catch (StrataException e) {
      warn.accept("the measurement was not cached: " + TerminalText.escape(e.getMessage()));
    } catch (IOException e) {
      warn.accept(
          "the measurement was not cached in "
              + TerminalText.escape(dir.toString())
              + ": "
              + dev.strata.engine.IoReason.of(e));
    }
    try {
      Files.deleteIfExists(partial);
    } catch (IOException ignored) {
      // nothing was renamed over the entry; a stale .partial is removed by the next write
    }
    return false;
  }

  static String yaml(KvMeasurement m) {
    Map<String, Object> top = new LinkedHashMap<>();
    Object[][] fields = {
      {"format", FORMAT},
      {"model_sha256", m.key().modelSha256()},
      {"engine", m.key().engine()},
      {"text", m.key().textName()},
      {"text_sha256", m.key().textSha256()},
      {"n_ctx", m.nCtx()},
      {"chunks", m.chunks()},
      {"positions", m.positions()},
      {"seconds", m.seconds()},
      {"measured_at", m.measuredAt()},
      {"ppl_fp16", m.pplReference()},
    };
    for (Object[] f : fields) {
      top.put((String) f[0], f[1]);
    }
    Map<String, Object> formats = new LinkedHashMap<>();
    for (Map.Entry<KvFormat, KvMeasurement.Figures> e : m.formats().entrySet()) {
      KvMeasurement.Figures x = e.getValue();
      formats.put(
          e.getKey().flagName(),
          String.join(
              " ",
              List.of(
                  Double.toString(x.ppl()),
                  Double.toString(x.meanKl()),
                  Double.toString(x.sameTop()),
                  Double.toString(x.rmsDp()))));
    }
    top.put("formats", formats);
    DumperOptions o = new DumperOptions();
    o.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    return "# strata-setup's KV measurement (docs/SETUP.md); formats: ppl mean_kl same_top rms_dp\n"
        + new Yaml(o).dump(top);
  }

  static KvMeasurement parse(String text, String source) {
    StrictYaml y = StrictYaml.parse(text, source, KEYS);
    if (!FORMAT.equals(y.string("format"))) {
      throw new IllegalArgumentException("format");
    }
    Map<KvFormat, KvMeasurement.Figures> formats = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : y.stringMap("formats").entrySet()) {
      KvFormat f = KvFormat.fromName(e.getKey());
      String[] v = e.getValue().trim().split(" ");
      if (f == null || v.length != FIGURES.size()) {
        throw new IllegalArgumentException("formats");
      }
      formats.put(
          f,
          new KvMeasurement.Figures(
              Double.parseDouble(v[0]),
              Double.parseDouble(v[1]),
              Double.parseDouble(v[2]),
              Double.parseDouble(v[3])));
    }
    return new KvMeasurement(
        new KvMeasurement.Key(
            y.strings("model_sha256"),
            y.string("engine"),
            y.string("text"),
            y.string("text_sha256")),
        Math.toIntExact(y.number("n_ctx")),
        Math.toIntExact(y.number("chunks")),
        Math.toIntExact(y.number("positions")),
        Double.parseDouble(y.string("seconds")),
        y.string("measured_at"),
        Double.parseDouble(y.string("ppl_fp16")),
        formats);
  }
}
