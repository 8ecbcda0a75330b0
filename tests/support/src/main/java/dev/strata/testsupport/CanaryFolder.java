package dev.strata.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture of the tests that attack where files are written (docs/RELIABILITY.md, "Where files
 * are written"): before each test, {@link #base} is the test's own temporary folder (its real path,
 * mode 755) and {@link #canary} a file in it holding {@code "canary\n"} (7 bytes), the file a link
 * planted by the other user points at and that no write, refused or not, may change. Test classes
 * extend it; their own {@code @BeforeEach} methods run after this one.
 */
public abstract class CanaryFolder {
  /** The test's temporary folder, as JUnit made it. */
  @TempDir protected Path tmp;

  /** {@link #tmp}'s real path, mode 755. */
  protected Path base;

  /** {@code base/canary}, holding {@code "canary\n"}. */
  protected Path canary;

  /** Makes {@link #base} and {@link #canary}. */
  @BeforeEach
  protected final void makeCanaryFolder() throws IOException {
    base = tmp.toRealPath();
    Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
    canary = Files.writeString(base.resolve("canary"), "canary\n");
  }
}
