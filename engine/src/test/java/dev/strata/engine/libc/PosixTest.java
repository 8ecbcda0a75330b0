package dev.strata.engine.libc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class PosixTest {
  /** A struct stat filled by hand at a platform's offsets (from its system headers). */
  static ByteBuffer stat(Posix.Platform p, boolean shortFields) {
    ByteBuffer b = ByteBuffer.allocate(p.layout.statSize()).order(ByteOrder.nativeOrder());
    if (shortFields) {
      b.putInt(p.layout.devOffset(), 0x1234);
      b.putShort(p.layout.modeOffset(), (short) 0100644);
    } else {
      b.putLong(p.layout.devOffset(), 0x1234);
      b.putInt(p.layout.modeOffset(), 0100644);
    }
    b.putLong(p.layout.inoOffset(), 987654321L);
    b.putInt(p.layout.uidOffset(), 501);
    b.putInt(p.layout.gidOffset(), 20);
    b.putLong(p.layout.sizeOffset(), 123456789L);
    return b;
  }

  @Test
  void everyPlatformLayoutDecodes() {
    for (Posix.Platform p : Posix.Platform.values()) {
      Posix.Stat s = p.decode(stat(p, p == Posix.Platform.MACOS));
      assertEquals(new Posix.Stat(0x1234, 987654321L, 0100644, 501, 20, 123456789L), s, p.name());
      assertTrue(s.regularFile());
      assertEquals(0644, s.permissions());
    }
    // the offsets of the headers, not of one another: macOS keeps st_size at 96
    assertEquals(96, Posix.Platform.MACOS.layout.sizeOffset());
    assertEquals(144, Posix.Platform.MACOS.layout.statSize());
    assertEquals(128, Posix.Platform.LINUX_AARCH64.layout.statSize());
    assertEquals(0x0100, Posix.Platform.MACOS.openReadFlags(false) & 0x0100);
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void fstatOfAnOpenFileAgreesWithTheFileSystem(@TempDir Path dir) throws Exception {
    Path f = Files.writeString(dir.resolve("f"), "hello");
    int fd = Posix.open(f.toString(), false);
    try {
      Posix.Stat s = Posix.fstat(fd);
      assertEquals(5, s.size());
      assertEquals(Files.getAttribute(f, "unix:ino"), s.ino());
      assertEquals(Files.getAttribute(f, "unix:uid"), s.uid());
      assertEquals("hello", new String(Posix.readAll(fd, s.size())));
      int dup = Posix.dupAtLeast(fd, 200);
      assertTrue(dup >= 200);
      Posix.close(dup);
    } finally {
      Posix.close(fd);
    }
    Path link = Files.createSymbolicLink(dir.resolve("l"), f);
    java.io.IOException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.io.IOException.class, () -> Posix.open(link.toString(), false));
    assertFalse(e.getMessage().isBlank());
  }
}
