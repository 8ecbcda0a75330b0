package dev.strata.engine.trust;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A refused file says who could replace it — its group, others, or both — and the chmod that fixes
 * it (docs/RELIABILITY.md, "Who may change what runs").
 */
class TrustedPathWordsTest {
  @TempDir Path dir;

  private String refusal(String mode) throws IOException {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path f = Files.writeString(dir.resolve("engine-" + mode + ".yaml"), "schema: x\n");
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
    TrustedPath.Subject s = new TrustedPath.Subject("config", "--config " + f);
    TrustRefused e =
        assertThrows(
            TrustRefused.class, () -> TrustedPath.open(f, s, TrustedPath.me()).close(), mode);
    assertTrue(e.getMessage().contains("chmod go-w " + f), e.getMessage());
    return e.getMessage();
  }

  @Test
  void theWordsNameWhoCanWrite() throws IOException {
    String group = refusal("rw-rw-r--");
    assertTrue(group.contains(" is writable by its group: "), group);
    String others = refusal("rw-r--rw-");
    assertTrue(others.contains(" is writable by others: "), others);
    String both = refusal("rw-rw-rw-");
    assertTrue(both.contains(" is writable by group and others: "), both);
  }
}
