package dev.strata.setup;

import dev.strata.cli.Machine;
import dev.strata.engine.Os;
import dev.strata.engine.ffm.StrataRefLibrary;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.GgufModel;
import dev.strata.setup.measure.KvMeasure;
import dev.strata.setup.measure.KvMeasureCache;
import dev.strata.setup.measure.KvMeasurement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The KV question's trade-off, measured or quoted (docs/SETUP.md "Measuring the KV trade-off"):
 * this model's own figures when {@link KvMeasure} has measured it on this machine (now or in an
 * earlier run: the cache), else upstream's table, labelled as upstream's. It changes what is shown,
 * never an answer or the config.
 */
final class KvOffer {
  /**
   * Upstream's measured cost of q4_0 (the seed's table), quoted as upstream's, not this model's.
   */
  static final String UPSTREAM =
      "Upstream's table, not this model: q4_0 on Qwen3.8-Flash-Next on an M4 Pro kept the same"
          + " top-1 token 94.45% of the time, mean KL 0.034, +1.7% perplexity on 1K-token segments,"
          + " a cost that grows with context (+8% at 1K to +12% at 8K on the PC engine): opt in"
          + " when memory matters more.";

  private final KvMeasure measure; // null: nothing on this machine to measure with
  private Path configLib; // what it was made for
  private final Consumer<String> say;
  private GgufModel model;
  private KvMeasurement measured;

  private KvOffer(KvMeasure measure, Consumer<String> say) {
    this.measure = measure;
    this.say = say;
  }

  /**
   * The offer for a config whose library is {@code configLib} (may be null) on {@code host}: the
   * measurement runs here with that library when the config is for this machine's OS and the file
   * is here, else with strata-ref found as setup finds it; none when neither exists.
   */
  static KvOffer of(
      Machine machine,
      Map<String, String> env,
      HostFacts host,
      Path configLib,
      Consumer<String> say) {
    Path lib =
        configLib != null
                && host.isMac() == Os.isMac(machine.osName())
                && configLib
                    .getFileName()
                    .toString()
                    .endsWith(StrataRefLibrary.suffix(machine.osName()))
                && Files.isRegularFile(configLib)
            ? configLib
            : StrataRefLibrary.discover(
                    machine.strataHome(), machine.strataRoot(), machine.osName())
                .orElse(null);
    Path cacheDir = KvMeasureCache.folder(env, machine.osName());
    if (lib == null || cacheDir == null) {
      return new KvOffer(null, say);
    }
    return new KvOffer(
        new KvMeasure(
            new KvMeasureCache(cacheDir, line -> say.accept("  note: " + line)),
            lib,
            KvMeasure.Plan.of(env),
            say),
        say);
  }

  /** {@code last} when it was made for {@code configLib}, else {@link #of} it (a new library). */
  static KvOffer forLibrary(
      KvOffer last,
      Machine machine,
      Map<String, String> env,
      HostFacts host,
      Path configLib,
      Consumer<String> say) {
    if (last != null && java.util.Objects.equals(last.configLib, configLib)) {
      return last;
    }
    KvOffer o = of(machine, env, host, configLib, say);
    o.configLib = configLib;
    return o;
  }

  /** Whether a measurement can run here. */
  boolean canMeasure() {
    return measure != null;
  }

  /** The formats measured and quoted for a KV question whose default path is {@code def}. */
  static List<KvFormat> formats(KvFormat def) {
    return def == KvFormat.Q4_0 || def == KvFormat.FP16
        ? List.of(KvFormat.Q4_0)
        : List.of(def, KvFormat.Q4_0);
  }

  /** This model's measurement, from this run or the cache. */
  Optional<KvMeasurement> measured(GgufModel m) {
    if (model != m) {
      model = m;
      measured = measure == null ? null : measure.cached(m).orElse(null);
    }
    return Optional.ofNullable(measured);
  }

  /** The trade-off text: the measured figures, or upstream's table said as such. */
  String tradeOff(GgufModel m, KvFormat def) {
    return measured(m).map(x -> x.quote(formats(def))).orElse(UPSTREAM);
  }

  /** The "measure" option's words, with the expected duration. */
  String offerDetail(GgufModel m, KvFormat def) {
    return "measure this model's cost on this machine first (about "
        + KvMeasure.seconds(measure.estimateSeconds(m, formats(def)))
        + " on idle cores; nothing is written but the cache)";
  }

  /** {@code --measure-kv} in the wizard: measures unless known; says so when it cannot. */
  void measureFirst(GgufModel m, KvFormat def) {
    if (measure == null) {
      say.accept(
          "  --measure-kv: no engine library to measure with on this machine (build strata-ref"
              + " with ./strata build): the KV question quotes upstream's table");
    } else if (measured(m).isEmpty()) {
      measureNow(m, def);
    }
  }

  /** Measures now (Ctrl-C stops it and the question is asked again); the outcome in one line. */
  KvMeasure.Outcome measureNow(GgufModel m, KvFormat def) {
    KvMeasure.Outcome o = measure(m, def);
    switch (o) {
      case KvMeasure.Outcome.Measured x -> {}
      case KvMeasure.Outcome.Cancelled c -> say.accept("  measurement stopped: nothing cached");
      case KvMeasure.Outcome.Failed f -> say.accept("  cannot measure: " + f.line());
    }
    return o;
  }

  /** Measures now; the caller says how it ended (progress lines go to {@code say}). */
  KvMeasure.Outcome measure(GgufModel m, KvFormat def) {
    KvMeasure.Outcome o = measure.measure(m, formats(def), KvMeasure::sigint);
    if (o instanceof KvMeasure.Outcome.Measured x) {
      model = m;
      measured = x.measurement();
    }
    return o;
  }
}
