package dev.strata.engine.host;

import java.util.List;
import java.util.Optional;

/**
 * The Apple GPU families the toolkit knows, the one table of them: the MTLGPUFamily number, the
 * chips of each, and how setup names and explains them ({@code --gpu-family}, the wizard's
 * question, {@code strata-setup probe}); the metal module's chip-name fallback reads it too.
 *
 * <p>Source: Apple's MTLGPUFamily documentation and Metal feature set tables
 * (https://developer.apple.com/documentation/metal/mtlgpufamily,
 * https://developer.apple.com/metal/limits): Apple7 = M1 (all variants), Apple8 = M2, Apple9 = M3
 * and M4; Apple10 = M5 as this project's host profiles and the seed's k4 disclosure have it. A
 * later chip than M5 is taken as Apple10, the newest family the host JSON holds.
 */
public enum GpuFamily {
  APPLE7(1007, "M1", "M1, M1 Pro, M1 Max, M1 Ultra", "M1 class", 1),
  APPLE8(1008, "M2", "M2, M2 Pro, M2 Max, M2 Ultra", "M2 class", 2),
  APPLE9(1009, "M3, M4", "M3 and M4 (all variants)", "M3/M4 class", 3),
  APPLE10(HostFacts.FAMILY_APPLE10, "M5", "M5 (k4: prompts take the flash chain)", "M5 class", 5);

  /** The lowest Apple family number a host JSON may hold (Apple1). */
  public static final int FIRST_APPLE = 1001;

  /** The MTLGPUFamily number (1007 for Apple7). */
  public final int id;

  /** The chips, short: "M3, M4". */
  public final String chips;

  /** The chips as the wizard's option lists them. */
  public final String wizardText;

  /** What {@code strata-setup probe} says the family means: "M3/M4 class". */
  public final String meaning;

  private final int firstGeneration;

  GpuFamily(int id, String chips, String wizardText, String meaning, int firstGeneration) {
    this.id = id;
    this.chips = chips;
    this.wizardText = wizardText;
    this.meaning = meaning;
    this.firstGeneration = firstGeneration;
  }

  /** The word setup takes and shows: {@code apple7}. */
  public String keyword() {
    return "apple" + (id - 1000);
  }

  /** The family of the {@code n} in "Apple Mn" (n ≥ 1): a chip newer than the table is Apple10. */
  public static GpuFamily ofGeneration(int n) {
    GpuFamily found = APPLE7;
    for (GpuFamily f : values()) {
      if (n >= f.firstGeneration) {
        found = f;
      }
    }
    return found;
  }

  /** The family numbered {@code id}, if the table has it. */
  public static Optional<GpuFamily> of(int id) {
    for (GpuFamily f : values()) {
      if (f.id == id) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  /** Every family's keyword, oldest first: what {@code --gpu-family} completes to (with none). */
  public static List<String> keywords() {
    return java.util.Arrays.stream(values()).map(GpuFamily::keyword).toList();
  }

  /**
   * "apple7 (M1), apple8 (M2), apple9 (M3, M4), apple10 (M5)": the families as setup lists them.
   */
  public static String listed() {
    return String.join(
        ", ",
        java.util.Arrays.stream(values()).map(f -> f.keyword() + " (" + f.chips + ")").toList());
  }
}
