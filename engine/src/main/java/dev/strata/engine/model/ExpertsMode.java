package dev.strata.engine.model;

import dev.strata.engine.Keyword;
import dev.strata.engine.Keywords;

/** Where the MoE experts live while the engine runs. */
public enum ExpertsMode implements Keyword {
  /** Experts stream from the SSD into an arena of resident slots; the page cache does the rest. */
  STREAM,
  /** Every expert is loaded and kept in memory. */
  RESIDENT;

  /** Parses a flag value; null when unknown. */
  public static ExpertsMode fromId(String id) {
    return Keywords.find(ExpertsMode.class, ExpertsMode::id, id);
  }
}
