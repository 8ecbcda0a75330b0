package dev.strata.engine;

import java.util.Locale;

/**
 * The one "is this a Mac" rule for an {@code os.name} value (the JVM's, or the one a command was
 * given through {@code Machine}): it starts with "mac" (the JDK says "Mac OS X") or "darwin", in
 * any case. Every Mac-only path choice — library suffix and loader format, {@code dlopen} flags,
 * config and cache folders, which probe runs — asks here. A host described by facts (a host file, a
 * config's {@code host}) says so itself: {@code HostFacts.isMac()}.
 */
public final class Os {
  private Os() {}

  /** Whether {@code osName} (an {@code os.name} value; null is not a Mac) names macOS. */
  public static boolean isMac(String osName) {
    if (osName == null) {
      return false;
    }
    String os = osName.toLowerCase(Locale.ROOT);
    return os.startsWith("mac") || os.startsWith("darwin");
  }

  /** Whether this JVM runs on macOS. */
  public static boolean isMac() {
    return isMac(System.getProperty("os.name"));
  }
}
