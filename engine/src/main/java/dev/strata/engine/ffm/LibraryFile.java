package dev.strata.engine.ffm;

import dev.strata.engine.Os;
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
 * must lie inside the file. The same checks run twice: in the launcher's preflight (so {@code
 * --dry-run} refuses what the launch would refuse) and in {@link NativeEngine#load} right before
 * {@code dlopen}. Nothing here loads or runs the file.
 */
public final class LibraryFile {
  private static final int PT_LOAD = 1;
  private static final int LC_SEGMENT_64 = 0x19;
  private static final int MH_MAGIC_64 = 0xfeedfacf;
  private static final int MH_MAGIC = 0xfeedface;
  private static final int FAT_MAGIC = 0xcafebabe;

  /**
   * Real fat Mach-O files hold a handful of architectures; a Java class file shares the magic and
   * has its version (45 and up) where the count would be.
   */
  private static final int MAX_FAT_ARCHS = 20;

  /** The library format a platform's loader takes. */
  public enum Format {
    ELF,
    MACH_O;

    /** The format of this machine's loader: Mach-O on macOS, ELF elsewhere. */
    public static Format here() {
      return Os.isMac() ? MACH_O : ELF;
    }
  }

  private LibraryFile() {}

  /**
   * What is wrong with {@code p} as a library for this machine's loader, or null when it looks like
   * a whole library.
   *
   * @return one phrase that follows the file's name ("is not a shared library (…)")
   * @throws IOException when the file cannot be read
   */
  public static String problem(Path p) throws IOException {
    return problem(p, Format.here());
  }

  /** As {@link #problem(Path)}, for the loader of {@code platform}. */
  public static String problem(Path p, Format platform) throws IOException {
    try (FileChannel fc = FileChannel.open(p, StandardOpenOption.READ)) {
      return problem(Source.of(fc), platform);
    }
  }

  /**
   * As {@link #problem(Path)}, for the whole content of a file already read (the bytes {@link
   * VerifiedLibrary} hashed and will load).
   */
  public static String problem(byte[] whole, Format platform) {
    try {
      return problem(Source.of(whole), platform);
    } catch (IOException e) {
      throw new IllegalStateException("reading an array cannot fail", e);
    }
  }

  /** Positional reads of a file or of its bytes in memory. */
  private interface Source {
    long size() throws IOException;

    int read(ByteBuffer into, long at) throws IOException;

    static Source of(FileChannel fc) {
      return new Source() {
        @Override
        public long size() throws IOException {
          return fc.size();
        }

        @Override
        public int read(ByteBuffer into, long at) throws IOException {
          return fc.read(into, at);
        }
      };
    }

    static Source of(byte[] whole) {
      return new Source() {
        @Override
        public long size() {
          return whole.length;
        }

        @Override
        public int read(ByteBuffer into, long at) {
          if (at >= whole.length) {
            return -1;
          }
          int n = (int) Math.min(into.remaining(), whole.length - at);
          into.put(whole, (int) at, n);
          return n;
        }
      };
    }
  }

  private static String problem(Source ch, Format platform) throws IOException {
    {
      long size = ch.size();
      ByteBuffer head = read(ch, 0, (int) Math.min(size, 64));
      if (head.remaining() < 4) {
        return "is not a shared library (too short for a header)";
      }
      int magicBe = head.order(ByteOrder.BIG_ENDIAN).getInt(0);
      int magicLe = Integer.reverseBytes(magicBe);
      Format format;
      if (magicBe == 0x7f454c46) {
        format = Format.ELF;
      } else if (magicLe == MH_MAGIC_64
          || magicBe == MH_MAGIC_64
          || magicLe == MH_MAGIC
          || magicBe == MH_MAGIC) {
        format = Format.MACH_O;
      } else if (magicBe == FAT_MAGIC || magicLe == FAT_MAGIC) {
        long archs =
            head.remaining() < 8
                ? 0
                : Integer.toUnsignedLong(
                    magicBe == FAT_MAGIC ? head.getInt(4) : Integer.reverseBytes(head.getInt(4)));
        if (archs == 0 || archs > MAX_FAT_ARCHS) {
          return "is not a shared library (a Java class file? engine.library must be the engine's"
              + " .dylib or .so)";
        }
        format = Format.MACH_O;
      } else {
        return "is not a shared library (no ELF or Mach-O header; is engine.library the right"
            + " file?)";
      }
      if (format != platform) {
        return format == Format.ELF
            ? "is an ELF library (Linux); this Mac loads Mach-O .dylib files: build the engine"
                + " for macOS"
            : "is a Mach-O library (macOS); this machine loads ELF .so files: build strata-ref"
                + " here (./strata build)";
      }
      if (format == Format.ELF) {
        return elf(ch, size, head);
      }
      if (magicLe == MH_MAGIC_64) {
        return machO(ch, size);
      }
      return null; // fat or 32-bit/big-endian Mach-O: leave the rest to the loader
    }
  }

  private static String elf(Source ch, long size, ByteBuffer head) throws IOException {
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

  private static String machO(Source ch, long size) throws IOException {
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

  private static ByteBuffer read(Source ch, long at, int n) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(Math.max(0, n));
    while (b.hasRemaining()) {
      if (ch.read(b, at + b.position()) < 0) {
        break;
      }
    }
    return b.flip();
  }
}
