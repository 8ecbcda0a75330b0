package dev.strata.engine;

import java.util.Locale;

/** The engines a config can target. The id is the config's {@code engine.backend} value. */
public enum Backend {
  /** The Apple Silicon engine (Metal). */
  METAL,
  /** strata-ref, the reference CPU engine built from this repository; follows the Metal rules. */
  CPU_REFERENCE,
  /** The PC engine (CUDA/HIP/SYCL) upstream; listed so flag rules can name it. */
  PC;

  /**
   * The config's spelling: the constant's name in lower case, a dash for each underscore ({@code
   * metal}, {@code cpu-reference}, {@code pc}).
   */
  public String id() {
    return Keywords.lower(this).replace('_', '-');
  }

  /** Parses a config value; null when unknown. */
  public static Backend fromId(String id) {
    if (id == null) {
      return null;
    }
    return Keywords.find(Backend.class, Backend::id, id.toLowerCase(Locale.ROOT));
  }
}
