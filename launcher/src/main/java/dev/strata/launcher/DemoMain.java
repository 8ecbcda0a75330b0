package dev.strata.launcher;

/** {@code ./strata demo}: demo model + config for this machine, then launch (issue 4). */
public final class DemoMain {
  private DemoMain() {}

  public static void main(String[] args) {
    System.err.println(
        "strata demo: not available yet — it needs strata-launch and strata-ref (issue 4) and"
            + " the demo model writer (issue 6)");
    System.exit(2);
  }
}
