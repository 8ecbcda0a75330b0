package dev.strata.setup.gen;

import dev.strata.engine.Backend;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import java.nio.file.Path;

/**
 * What the command line and the {@code --answers} file say before anything is asked; null = not
 * said. Flags win over the file ({@link #over}).
 *
 * @param model first shard or a folder
 * @param context --ctx
 * @param experts --experts
 * @param kv --kv
 * @param engineLib --engine-lib
 * @param backend --backend
 * @param hostFile --host-file (a host JSON or a profile name)
 */
public record Given(
    Path model,
    Long context,
    ExpertsMode experts,
    KvFormat kv,
    Path engineLib,
    Backend backend,
    String hostFile) {

  public static final Given NOTHING = new Given(null, null, null, null, null, null, null);

  /** These answers, with {@code base}'s where these say nothing. */
  public Given over(Given base) {
    return new Given(
        model != null ? model : base.model,
        context != null ? context : base.context,
        experts != null ? experts : base.experts,
        kv != null ? kv : base.kv,
        engineLib != null ? engineLib : base.engineLib,
        backend != null ? backend : base.backend,
        hostFile != null ? hostFile : base.hostFile);
  }
}
