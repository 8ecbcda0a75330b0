package dev.strata.engine.cli;

import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.kv.KvFormat;
import picocli.CommandLine.Option;

/**
 * {@code --kv FORMAT}, shared by {@code strata-setup} and {@code strata-launch demo}: the KV-cache
 * format to opt into, checked by the engine flag table's {@code --kv} row ({@link TableValues}).
 */
public final class KvOption {
  @Option(
      names = EngineFlags.KV,
      paramLabel = "FORMAT",
      converter = TableValues.Kv.class,
      completionCandidates = TableValues.KvNames.class,
      description =
          "KV cache format, opt-in: q4_0 stores ${bundle:strata.kv.q4_0.cell} instead of"
              + " ${bundle:strata.kv.int8.cell} B per cell per layer (upstream: +1.7%% perplexity on"
              + " 1K-token segments, more at longer context). Without it no --kv is written: the"
              + " engine's default path.")
  KvFormat format;

  /** The format, or null when the option is absent. */
  public KvFormat format() {
    return format;
  }
}
