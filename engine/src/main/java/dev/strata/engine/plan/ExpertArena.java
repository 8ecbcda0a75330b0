package dev.strata.engine.plan;

/**
 * The expert slots a plan keeps in memory. In resident mode that is every expert; in stream mode it
 * is what the budget leaves, capped at the model's slots.
 *
 * @param slotBytes bytes of one slot: one expert of one MoE layer
 * @param slots slots in memory
 * @param modelSlots every slot of the model (experts × MoE layers)
 * @param tokenSlots one token's experts: experts used × MoE layers, the least an arena can run with
 * @param bytes slots × slotBytes
 */
public record ExpertArena(
    long slotBytes, long slots, long modelSlots, long tokenSlots, long bytes) {

  /** Whether the arena holds every expert of the model. */
  public boolean holdsEveryExpert() {
    return slots >= modelSlots;
  }
}
