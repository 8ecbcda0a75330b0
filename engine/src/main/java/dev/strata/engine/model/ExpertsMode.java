package dev.strata.engine.model;

/** Where the MoE experts live while the engine runs. */
public enum ExpertsMode {
  /** Experts stream from the SSD into an arena of resident slots; the page cache does the rest. */
  STREAM("stream"),
  /** Every expert is loaded and kept in memory. */
  RESIDENT("resident");

  private final String id;

  ExpertsMode(String id) {
    this.id = id;
  }

  /** The value of {@code --experts}. */
  public String id() {
    return id;
  }

  /** Parses a flag value; null when unknown. */
  public static ExpertsMode fromId(String id) {
    for (ExpertsMode m : values()) {
      if (m.id.equals(id)) {
        return m;
      }
    }
    return null;
  }
}
