package dev.strata.engine.ffm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Structural checks of a shared library file before it is handed to the dynamic loader. They
 * matter: glibc's {@code dlopen} maps a truncated ELF's segments past the end of the file and the
 * process dies of SIGBUS inside ld.so — for the launcher, a JVM crash instead of one line. So the
 * header, the program headers (ELF) or load commands (Mach-O) are read and every loadable segment
 * must lie inside the file.
 */
final class LibraryFile {
  private static final int PT_LOAD = 1;
  private static final int LC_SEGMENT_64 = 0x19;

  private LibraryFile() {}

  /** Returns null when the file looks like a whole library, else what is wrong (one phrase). */
  static String problem(Path p) throws IOException {
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
      long size = ch.size();
      ByteBuffer head = read(ch, 0, (int) Math.min(size, 64));
      if (head.remaining() < 4) {
        return "is not a shared library (too short for a header)";
      }
      int magicBe = head.order(ByteOrder.BIG_ENDIAN).getInt(0);
      if (magicBe == 0x7f454c46) {
        return elf(ch, size, head);
      }
      int magicLe = Integer.reverseBytes(magicBe);
      if (magicLe == 0xfeedfacf) {
        return machO(ch, size);
      }
      if (magicBe == 0xcafebabe || magicLe == 0xfeedface || magicBe == 0xfeedfacf) {
        return null; // fat or 32-bit/big-endian Mach-O: leave it to the loader
      }
      return "is not a shared library (no ELF or Mach-O header; is engine.library the right file?)";
    }
  }

  private static String elf(FileChannel ch, long size, ByteBuffer head) throws IOException {
    if (head.remaining() < 64 || head.get(4) != 2 || head.get(5) != 1) {
      return "is not a 64-bit little-endian ELF library (built for another platform?)";
    }
    head.order(ByteOrder.LITTLE_ENDIAN);
    long phoff = head.getLong(32);
    long shoff = head.getLong(40);
    int phentsize = Short.toUnsignedInt(head.getShort(54));
    int phnum = Short.toUnsignedInt(head.getShort(56));
    int shentsize = Short.toUnsignedInt(head.getShort(58));
    int shnum = Short.toUnsignedInt(head.getShort(60));
    if (phnum == 0 || phentsize < 56 || phoff < 0 || phoff + (long) phnum * phentsize > size) {
      return truncated(size, "its program headers");
    }
    if (shnum > 0 && (shoff < 0 || shoff + (long) shnum * shentsize > size)) {
      return truncated(size, "its section headers");
    }
    ByteBuffer ph = read(ch, phoff, phnum * phentsize).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < phnum; i++) {
      int base = i * phentsize;
      if (ph.getInt(base) != PT_LOAD) {
        continue;
      }
      long off = ph.getLong(base + 8);
      long filesz = ph.getLong(base + 32);
      if (off < 0 || filesz < 0 || off + filesz > size) {
        return truncated(size, "a loadable segment at bytes " + off + ".." + (off + filesz));
      }
    }
    return null;
  }

  private static String machO(FileChannel ch, long size) throws IOException {
    ByteBuffer h = read(ch, 0, 32).order(ByteOrder.LITTLE_ENDIAN);
    if (h.remaining() < 32) {
      return truncated(size, "its header");
    }
    int ncmds = h.getInt(16);
    long sizeofcmds = Integer.toUnsignedLong(h.getInt(20));
    if (ncmds < 0 || 32 + sizeofcmds > size || sizeofcmds > (1 << 24)) {
      return truncated(size, "its load commands");
    }
    ByteBuffer cmds = read(ch, 32, (int) sizeofcmds).order(ByteOrder.LITTLE_ENDIAN);
    int at = 0;
    for (int i = 0; i < ncmds; i++) {
      if (at + 8 > sizeofcmds) {
        return truncated(size, "its load commands");
      }
      int cmd = cmds.getInt(at);
      int cmdsize = cmds.getInt(at + 4);
      if (cmdsize < 8 || at + (long) cmdsize > sizeofcmds) {
        return "is a damaged Mach-O library (load command " + i + " has a bad size)";
      }
      if (cmd == LC_SEGMENT_64 && cmdsize >= 72) {
        long fileoff = cmds.getLong(at + 40);
        long filesize = cmds.getLong(at + 48);
        if (fileoff < 0 || filesize < 0 || fileoff + filesize > size) {
          return truncated(size, "a segment at bytes " + fileoff + ".." + (fileoff + filesize));
        }
      }
      at += cmdsize;
    }
    return null;
  }

  private static String truncated(long size, String what) {
    return "is truncated or damaged: "
        + what
        + " lie past its end ("
        + size
        + " bytes; rebuild or re-copy the library)";
  }

  private static ByteBuffer read(FileChannel ch, long at, int n) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(Math.max(0, n));
    while (b.hasRemaining()) {
      if (ch.read(b, at + b.position()) < 0) {
        break;
      }
    }
    return b.flip();
  }
}
