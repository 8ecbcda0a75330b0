package dev.strata.launcher.serve;

/**
 * The limits {@code jdk.httpserver} itself enforces, set for {@link OpenAiServer}: system
 * properties it reads once, when its classes load (so before the first server of this JVM); one
 * given with {@code -D} wins. docs/LAUNCH.md, "Limits on what a client sends".
 */
final class JdkLimits {

  /**
   * The most connections open at once ({@code jdk.httpserver.maxConnections}): the server closes
   * any connection accepted beyond it at once. Each may hold a body of up to {@link
   * ServeRunner#MAX_BODY_BYTES} while it is checked, so this bounds that memory (64 MiB).
   */
  static final int MAX_CONNECTIONS = 64;

  /**
   * The most seconds a request's line, headers and body may take to arrive ({@code
   * sun.net.httpserver.maxReqTime}; the JDK's default is forever): past it the JDK closes the
   * connection, without an answer. It is what ends a client that trickles its headers (a
   * slowloris), and the read a 408 could not interrupt ({@link RequestBody}); a connection that
   * sends nothing at all is closed within {@code min(idleInterval 30 s, this)} plus the JDK's 10 s
   * clock tick. The time a queued or generating request takes is not counted.
   */
  static final int REQUEST_SECONDS = 45;

  private JdkLimits() {}

  /** Sets the properties not set already. */
  static synchronized void apply() {
    setIfUnset("jdk.httpserver.maxConnections", Integer.toString(MAX_CONNECTIONS));
    setIfUnset("sun.net.httpserver.maxReqTime", Integer.toString(REQUEST_SECONDS));
  }

  private static void setIfUnset(String property, String value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, value);
    }
  }
}
