package dev.strata.setup;

import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.engine.Backend;
import dev.strata.engine.ExitCodes;
import dev.strata.engine.StrataException;
import dev.strata.engine.gen.Templates;
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.model.GgufModel;
import dev.strata.engine.plan.PlanDefaults;
import dev.strata.engine.text.TerminalText;
import dev.strata.setup.gen.EngineLibraries;
import dev.strata.setup.measure.KvMeasure;
import java.nio.file.Path;

/**
 * {@code strata-setup --measure-kv} without the wizard: measures the model's KV trade-off on this
 * machine (progress and the figures on stderr, the result cached), then setup goes on exactly as
 * without the flag — the same config bytes. A measurement that cannot run stops setup before
 * anything is written: exit 2 (the model, the text, no library to measure with), 3 (the library
 * fails a launch's checks, or the engine refuses the model), 130 (Ctrl-C).
 */
final class SetupMeasure {
  private SetupMeasure() {}

  static void measure(
      Io io, Machine machine, HostFacts host, GgufModel model, Path library, Backend requested) {
    KvOffer offer =
        KvOffer.of(
            machine,
            io.env(),
            host,
            library,
            line -> {
              io.err().println("strata-setup: " + line.strip());
              io.err().flush();
            });
    if (!offer.canMeasure()) {
      throw new StrataException(
          ExitCodes.USAGE,
          "--measure-kv: no engine library to measure with on this machine (build strata-ref with"
              + " ./strata build, or pass --engine-lib with a library for this machine), or no"
              + " HOME for the cache folder");
    }
    Backend backend = EngineLibraries.backend(host, library, requested);
    var def = PlanDefaults.defaultPools(backend, Templates.load(backend).env());
    KvMeasure.Outcome o = offer.measure(model, def);
    switch (o) {
      case KvMeasure.Outcome.Measured m ->
          io.err()
              .println(
                  "strata-setup: "
                      + TerminalText.escape(m.measurement().quote(KvOffer.formats(def))));
      case KvMeasure.Outcome.Cancelled c ->
          throw new StrataException(
              ExitCodes.INTERRUPTED, "--measure-kv: interrupted: nothing cached, nothing written");
      case KvMeasure.Outcome.Failed f ->
          throw new StrataException(f.exitCode(), "--measure-kv: " + f.line());
    }
    io.err().flush();
  }
}
