package dev.strata.engine.write;

import dev.strata.engine.StrataException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A second writer process for {@link ConfigWriterTrustTest}: {@code loop <target> <n> <tag>} writes
 * n configs tagged with its name; {@code force <target>} writes one with {@code --force} and prints
 * the one-line error, exit code as strata-setup would.
 */
public final class WriterChild {
  private WriterChild() {}

  public static void main(String[] a) {
    Path target = Path.of(a[1]);
    try {
      if (a[0].equals("loop")) {
        int n = Integer.parseInt(a[2]);
        for (int i = 0; i < n; i++) {
          ConfigWriter.write(target, ConfigWriterTrustTest.content(a[3], i), false);
        }
      } else {
        ConfigWriter.write(
            target, "schema: strata.engine/v1\n# forced\n".getBytes(StandardCharsets.UTF_8), true);
      }
    } catch (StrataException e) {
      System.err.println("strata-setup: " + e.getMessage());
      System.exit(e.exitCode());
    }
    System.exit(0);
  }
}
