package dev.strata.engine;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The one SHA-256 of the toolkit (the library pin {@code engine.sha256}, the config writer's state
 * file): lower-case hex, 64 digits, as {@code sha256sum} prints it.
 */
public final class Sha256 {
  private Sha256() {}

  /** The SHA-256 of {@code bytes}, lower-case hex. */
  public static String hex(byte[] bytes) {
    MessageDigest md = digest();
    return HexFormat.of().formatHex(md.digest(bytes));
  }

  /** The SHA-256 of everything {@code in} still holds (read to its end, not closed). */
  public static String hex(InputStream in) throws IOException {
    MessageDigest md = digest();
    byte[] buf = new byte[1 << 16];
    int n;
    while ((n = in.read(buf)) > 0) {
      md.update(buf, 0, n);
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /**
   * {@code hex} as a message beside {@code other} shows it: its first 16 digits, or as many as it
   * takes to reach the first digit where the two differ — a pin that differs from the file only
   * after digit 16 must not read like a match.
   */
  public static String abbreviate(String hex, String other) {
    int same = 0;
    while (same < hex.length()
        && same < other.length()
        && Character.toLowerCase(hex.charAt(same)) == Character.toLowerCase(other.charAt(same))) {
      same++;
    }
    int shown = Math.max(16, same + 1);
    return hex.length() > shown ? hex.substring(0, shown) + "…" : hex;
  }

  /**
   * Two hashes that differ, each shown against the other ({@link #abbreviate}): {@code "sha256
   * 3f2a…, expected 9c01…"} for {@code compared("sha256", a, "expected", b)}.
   */
  public static String compared(String aName, String a, String bName, String b) {
    return aName + " " + abbreviate(a, b) + ", " + bName + " " + abbreviate(b, a);
  }
}
