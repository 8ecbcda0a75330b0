package dev.strata.tests.golden;

import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.config.ConfigCodec;
import dev.strata.engine.config.EngineConfig;
import dev.strata.engine.gen.Answers;
import dev.strata.engine.gen.Generator;
import dev.strata.engine.gen.Template;
import dev.strata.engine.gen.Templates;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.DemoModel;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelGeometry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The default-identity matrix of docs/GOLDEN.md, default identity: stream {stream, resident} × host
 * memory {16, 24, 48, 128 GiB} × context {8192, 32768, 65536} × shards {1, 4}, on the seed's model
 * geometry (the demo model, written and read back through the product's GGUF writer and reader) and
 * an M4 Pro-like host (profile {@value #HOST_PROFILE} with its memory replaced).
 *
 * <p>Every config goes through the product's generator ({@link Generator}) and the product's writer
 * ({@link ConfigCodec#write}), so a golden is exactly the bytes {@code strata-setup} writes. No
 * machine path reaches a golden: the shards are named under {@value #MODEL_FOLDER} and the engine
 * library is {@value #LIBRARY}.
 */
public final class GoldenMatrix {
  /** The host every cell starts from. */
  public static final String HOST_PROFILE = "m4-pro-48";

  /** Stands for the folder the demo model was written to. */
  public static final String MODEL_FOLDER = "/models";

  /** A fixed engine library path; not on disk, so the config pins no sha256. */
  public static final String LIBRARY = "/opt/strata/lib/libstrata.dylib";

  public static final List<Integer> MEMORY_GIB = List.of(16, 24, 48, 128);
  public static final List<Long> CONTEXTS = List.of(8_192L, 32_768L, 65_536L);
  public static final List<Integer> SHARDS = List.of(1, 4);

  private static final long GIB = 1L << 30;

  /** Geometry and placeholder shard paths per shard count: the demo model is written once each. */
  private static final Map<Integer, Model> MODELS = new ConcurrentHashMap<>();

  /** Outcomes of {@link #generate(Cell, KvFormat)}: the tests share one generation per cell. */
  private static final Map<String, Outcome> OUTCOMES = new ConcurrentHashMap<>();

  /** Loaded once: the packaged template and host profile are parsed by the product's readers. */
  private static final class Packaged {
    static final Template METAL = Templates.load(Backend.METAL);
    static final HostFacts HOST = HostProfiles.profile(HOST_PROFILE).orElseThrow();
  }

  private GoldenMatrix() {}

  /**
   * One cell of the matrix.
   *
   * @param experts where the experts live
   * @param memoryGib the host's memory in GiB
   * @param context the context in tokens
   * @param shards how many GGUF shards the model is split into
   */
  public record Cell(ExpertsMode experts, int memoryGib, long context, int shards) {
    /** e.g. {@code stream-m16g-ctx32768-4shards}: file and test names say what the cell is. */
    public String name() {
      return experts.id()
          + "-m"
          + memoryGib
          + "g-ctx"
          + context
          + "-"
          + shards
          + (shards == 1 ? "shard" : "shards");
    }

    public Answers answers(KvFormat kv) {
      return new Answers(context, experts, kv);
    }

    /** {@link GoldenMatrix#HOST_PROFILE} with this cell's memory. */
    public HostFacts host() {
      return withMemory(baseHost(), memoryGib * GIB);
    }

    @Override
    public String toString() {
      return name();
    }
  }

  /** The 48 cells, in a fixed order (experts, memory, context, shards). */
  public static List<Cell> cells() {
    List<Cell> out = new ArrayList<>();
    for (ExpertsMode e : List.of(ExpertsMode.STREAM, ExpertsMode.RESIDENT)) {
      for (int m : MEMORY_GIB) {
        for (long c : CONTEXTS) {
          for (int s : SHARDS) {
            out.add(new Cell(e, m, c, s));
          }
        }
      }
    }
    return List.copyOf(out);
  }

  /** The three cells whose q4_0 config is pinned in full, as upstream pinned three. */
  public static List<Cell> q4Cells() {
    return List.of(
        new Cell(ExpertsMode.STREAM, 48, 32_768, 4),
        new Cell(ExpertsMode.STREAM, 16, 8_192, 1),
        new Cell(ExpertsMode.RESIDENT, 128, 65_536, 4));
  }

  /** What generating a cell gives: a config's bytes, or the plan's refusal. */
  public sealed interface Outcome {
    /** The golden's name for a cell, {@code config/…yaml} or {@code refusal/…txt}. */
    String goldenName(String cellName);

    /** The golden's text. */
    String text();
  }

  /**
   * A written config.
   *
   * @param config what the generator returned
   * @param yaml {@link ConfigCodec#write} of it
   */
  public record Config(EngineConfig config, String yaml) implements Outcome {
    @Override
    public String goldenName(String cellName) {
      return "config/" + cellName + ".yaml";
    }

    @Override
    public String text() {
      return yaml;
    }
  }

  /**
   * The generator refused: the plan does not fit (exit {@value ExitCodes#PREFLIGHT}).
   *
   * @param message the one-line refusal the user sees
   */
  public record Refusal(String message) implements Outcome {
    @Override
    public String goldenName(String cellName) {
      return "refusal/" + cellName + ".txt";
    }

    @Override
    public String text() {
      return message + "\n";
    }
  }

  /**
   * Generates a cell with the packaged Metal template, as {@code strata-setup} does; generated once
   * per cell and format and shared by the tests ({@link #generate(HostFacts, Cell, KvFormat,
   * Template)} always generates afresh).
   */
  public static Outcome generate(Cell cell, KvFormat kv) {
    return OUTCOMES.computeIfAbsent(
        cell.name() + "/" + kv, k -> generate(cell.host(), cell, kv, metalTemplate()));
  }

  /** The packaged Metal template ({@code templates/engine/metal.yaml}). */
  public static Template metalTemplate() {
    return Packaged.METAL;
  }

  /**
   * Generates a cell with a given host and template (the sensitivity tests pass altered ones).
   *
   * @throws StrataException for anything but a plan refusal: a matrix cell never is a usage error
   */
  public static Outcome generate(HostFacts host, Cell cell, KvFormat kv, Template template) {
    Model model = model(cell.shards());
    try {
      EngineConfig config =
          Generator.plan(
                  host,
                  model.geometry(),
                  model.shards(),
                  cell.answers(kv),
                  new Generator.Library(LIBRARY, null),
                  template)
              .requireFits()
              .config();
      return new Config(config, ConfigCodec.write(config));
    } catch (StrataException e) {
      if (e.exitCode() != ExitCodes.PREFLIGHT) {
        throw e;
      }
      return new Refusal(e.getMessage());
    }
  }

  /** The generator's plan of a cell (whether or not it fits), for the plan-table goldens. */
  public static Generator.Generated plan(Cell cell, KvFormat kv) {
    Model model = model(cell.shards());
    return Generator.plan(
        cell.host(),
        model.geometry(),
        model.shards(),
        cell.answers(kv),
        new Generator.Library(LIBRARY, null),
        metalTemplate());
  }

  /** The M4 Pro-like host every cell starts from. */
  public static HostFacts baseHost() {
    return Packaged.HOST;
  }

  public static HostFacts withMemory(HostFacts h, long memoryBytes) {
    return new HostFacts(
        h.os(),
        h.chip(),
        h.cpuCores(),
        h.perfCores(),
        h.efficiencyCores(),
        memoryBytes,
        h.gpuFamily(),
        h.metal4(),
        h.k4(),
        h.osVersion(),
        h.wiredLimitMb());
  }

  /** One more performance core (and logical CPU): a default that must move {@code --threads}. */
  public static HostFacts withOneMorePerfCore(HostFacts h) {
    return new HostFacts(
        h.os(),
        h.chip(),
        h.cpuCores() + 1,
        h.perfCores() + 1,
        h.efficiencyCores(),
        h.memoryBytes(),
        h.gpuFamily(),
        h.metal4(),
        h.k4(),
        h.osVersion(),
        h.wiredLimitMb());
  }

  /**
   * The demo model's geometry and shard paths (under {@link #MODEL_FOLDER}).
   *
   * @param geometry as the product's GGUF reader derives it
   * @param shards placeholder paths, first shard first
   */
  public record Model(ModelGeometry geometry, List<String> shards) {}

  /**
   * The demo model split into {@code shards}: written (sparse) to a temporary folder, read back,
   * and the folder removed — only the geometry and the file names are kept.
   */
  public static Model model(int shards) {
    return MODELS.computeIfAbsent(shards, GoldenMatrix::writeAndRead);
  }

  private static Model writeAndRead(int shards) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("strata-golden-demo-");
      List<Path> written = DemoModel.write(dir, shards);
      GgufModel m = GgufReader.readModel(written.getFirst());
      List<String> names = new ArrayList<>();
      for (GgufModel.Shard s : m.shards()) {
        names.add(MODEL_FOLDER + "/" + s.path().getFileName());
      }
      return new Model(m.geometry(), List.copyOf(names));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      if (dir != null) {
        deleteTree(dir);
      }
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
