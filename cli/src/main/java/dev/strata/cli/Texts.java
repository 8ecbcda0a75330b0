package dev.strata.cli;

import dev.strata.engine.flags.EngineFlags;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.DemoModel;
import java.util.ListResourceBundle;
import java.util.Locale;

/**
 * The figures help texts quote, computed from their sources instead of typed into each text:
 * picocli interpolates {@code ${bundle:KEY}} in a description from the command's resource bundle,
 * which {@link Cli#configure} sets to this one.
 *
 * <ul>
 *   <li>{@code strata.ctx.max}: the largest context ({@link EngineFlags#MAX_CTX}), e.g. 1048576
 *   <li>{@code strata.kv.q4_0.cell}, {@code strata.kv.int8.cell}: bytes of one KV cell of one QSA
 *       layer ({@link KvFormat#cellBytes}) at the seed's geometry ({@link DemoModel#KV_HEADS} KV
 *       heads of {@link DemoModel#HEAD_DIM}): 576 and 1,056
 * </ul>
 *
 * Keys start with {@code strata.} so that none is taken for an option's or a section's own key.
 */
public final class Texts extends ListResourceBundle {
  /** The bytes of one cell of {@code format} at the seed's geometry, with grouping: "1,056". */
  public static String cellBytes(KvFormat format) {
    return String.format(
        Locale.ROOT, "%,d", format.cellBytes(DemoModel.KV_HEADS, DemoModel.HEAD_DIM));
  }

  @Override
  protected Object[][] getContents() {
    return new Object[][] {
      {"strata.ctx.max", Integer.toString(EngineFlags.MAX_CTX)},
      {"strata.kv.q4_0.cell", cellBytes(KvFormat.Q4_0)},
      {"strata.kv.int8.cell", cellBytes(KvFormat.INT8)},
    };
  }
}
