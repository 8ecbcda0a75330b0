package dev.strata.launcher;

/** Entry point of {@code strata-launch} (issue 4). */
public final class LaunchMain {
  private LaunchMain() {}

  public static void main(String[] args) {
    System.err.println("strata-launch: not built yet (issue 4)");
    System.exit(2);
  }
}
