package dev.strata.engine;

import java.util.Locale;

/** The engines a config can target. The id is the config's {@code engine.backend} value. */
public enum Backend {
  /** The Apple Silicon engine (Metal). */
  METAL("metal"),
  /** strata-ref, the reference CPU engine built from this repository; follows the Metal rules. */
  CPU_REFERENCE("cpu-reference"),
  /** The PC engine (CUDA/HIP/SYCL) upstream; listed so flag rules can name it. */
  PC("pc");

  private final String id;

  Backend(String id) {
    this.id = id;
  }

  public String id() {
    return id;
  }

  /** Parses a config value; null when unknown. */
  public static Backend fromId(String id) {
    if (id == null) {
      return null;
    }
    return Keywords.find(Backend.class, Backend::id, id.toLowerCase(Locale.ROOT));
  }
}
