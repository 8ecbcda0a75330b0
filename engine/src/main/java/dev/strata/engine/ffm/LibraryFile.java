package dev.strata.engine.ffm;

import dev.strata.engine.Os;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Structural checks of a shared library file before it is handed to the dynamic loader. They
 * matter: glibc's {@code dlopen} maps a truncated ELF's segments past the end of the file and the
 * process dies of SIGBUS inside ld.so — for the launcher, a JVM crash instead of one line. So the
 * header, the program headers (ELF) or load commands (Mach-O) are read and every loadable segment
 * must lie inside the file. They run on the bytes {@link VerifiedLibrary} read through its one
 * checked descriptor and hashed, each time one is opened: in the launcher's preflight (so {@code
 * --dry-run} refuses what the launch would refuse) and for the launch itself. Nothing here loads or
 * runs the file.
 */
public final class LibraryFile {
  private static final int PT_LOAD = 1;
  private static final int PT_DYNAMIC = 2;
  private static final long DT_FLAGS_1 = 0x6ffffffbL;
  private static final long DF_1_PIE = 0x08000000L;
  private static final int SHT_DYNSYM = 11;
  private static final int EM_X86_64 = 62;
  private static final int EM_AARCH64 = 183;
  private static final int CPU_TYPE_X86_64 = 0x01000007;
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
   * What is wrong with {@code whole}, the whole content of a file (the bytes {@link
   * VerifiedLibrary} hashed and will load), as a library for the loader of {@code platform}, or
   * null when it looks like a whole library.
   *
   * @return one phrase that follows the file's name ("is not a shared library (…)")
   */
  public static String problem(byte[] whole, Format platform) {
    ByteBuffer b = ByteBuffer.wrap(whole);
    long size = whole.length;
    if (size < 4) {
      return "is not a shared library (too short for a header)";
    }
    int magicBe = b.order(ByteOrder.BIG_ENDIAN).getInt(0);
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
          size < 8
              ? 0
              : Integer.toUnsignedLong(
                  magicBe == FAT_MAGIC ? b.getInt(4) : Integer.reverseBytes(b.getInt(4)));
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
    b.order(ByteOrder.LITTLE_ENDIAN);
    if (format == Format.ELF) {
      return elf(b, size);
    }
    if (magicLe == MH_MAGIC_64) {
      return machO(b, size);
    }
    return null; // fat or 32-bit/big-endian Mach-O: leave the rest to the loader
  }

  /**
   * Whether {@code length} bytes at {@code offset} lie inside a file of {@code size} bytes. Both
   * come from the file as signed 64-bit numbers (a u64 of 2^63 or more reads negative), and the
   * test never adds them: a crafted pair whose sum overflows is outside, not wrapped round inside.
   */
  static boolean inside(long offset, long length, long size) {
    return offset >= 0 && length >= 0 && offset <= size && length <= size - offset;
  }

  /** ELF-64 little-endian: the ELF header, program header table and section header table. */
  private static String elf(ByteBuffer b, long size) {
    if (size < 64 || b.get(4) != 2 || b.get(5) != 1) {
      return "is not a 64-bit little-endian ELF library (built for another platform?)";
    }
    long phoff = b.getLong(32);
    long shoff = b.getLong(40);
    int phentsize = Short.toUnsignedInt(b.getShort(54));
    int phnum = Short.toUnsignedInt(b.getShort(56));
    int shentsize = Short.toUnsignedInt(b.getShort(58));
    int shnum = Short.toUnsignedInt(b.getShort(60));
    if (phnum == 0 || phentsize < 56 || !inside(phoff, (long) phnum * phentsize, size)) {
      return truncated(size, "its program headers");
    }
    if (shnum > 0 && !inside(shoff, (long) shnum * shentsize, size)) {
      return truncated(size, "its section headers");
    }
    int machine = Short.toUnsignedInt(b.getShort(18));
    int want = elfMachine(System.getProperty("os.arch", ""));
    if (machine != 0 && want != 0 && machine != want) {
      return "is built for another architecture ("
          + elfMachineName(machine)
          + "; this machine is "
          + elfMachineName(want)
          + "): use a build of the engine for this machine";
    }
    boolean pie = false;
    for (int i = 0; i < phnum; i++) {
      int base = (int) phoff + i * phentsize; // inside the file, so an int
      int type = b.getInt(base);
      long off = b.getLong(base + 8);
      long filesz = b.getLong(base + 32);
      if (type == PT_LOAD && !inside(off, filesz, size)) {
        return truncated(size, segment("a loadable segment", off, filesz));
      }
      if (type == PT_DYNAMIC && inside(off, filesz, size)) {
        for (long e = off; e + 16 <= off + filesz; e += 16) {
          long tag = b.getLong((int) e);
          if (tag == 0) {
            break;
          }
          pie |= tag == DT_FLAGS_1 && (b.getLong((int) e + 8) & DF_1_PIE) != 0;
        }
      }
    }
    if (pie) {
      return "is a program (a position-independent executable), not a shared library: name the"
          + " engine's library (libstrata_ref.so, or the Metal engine's .dylib)";
    }
    return missingSymbols(b, size, shoff, shnum, shentsize);
  }

  /** The ELF e_machine of a JVM os.arch, 0 when not known here. */
  static int elfMachine(String osArch) {
    return switch (osArch) {
      case "amd64", "x86_64" -> EM_X86_64;
      case "aarch64", "arm64" -> EM_AARCH64;
      default -> 0;
    };
  }

  static String elfMachineName(int machine) {
    return switch (machine) {
      case EM_X86_64 -> "x86_64";
      case EM_AARCH64 -> "aarch64";
      case 3 -> "i386";
      case 40 -> "arm";
      case 243 -> "riscv";
      case 21 -> "ppc64";
      case 22 -> "s390x";
      default -> "ELF machine " + machine;
    };
  }

  /**
   * When the file has a dynamic symbol table (.dynsym): the engine's ABI symbols ({@link
   * NativeEngine#SYMBOLS}) it does not define, as a phrase, or null when it defines them all (or
   * has no section headers to say).
   */
  private static String missingSymbols(
      ByteBuffer b, long size, long shoff, int shnum, int shentsize) {
    if (shnum == 0 || shentsize < 64) {
      return null;
    }
    java.util.Set<String> defined = new java.util.HashSet<>();
    boolean any = false;
    for (int i = 0; i < shnum; i++) {
      int sh = (int) (shoff + (long) i * shentsize);
      if (b.getInt(sh + 4) != SHT_DYNSYM) {
        continue;
      }
      long off = b.getLong(sh + 24);
      long len = b.getLong(sh + 32);
      int link = b.getInt(sh + 40);
      if (!inside(off, len, size) || link < 0 || link >= shnum) {
        return null; // the loader judges a table it cannot find
      }
      int str = (int) (shoff + (long) link * shentsize);
      long strOff = b.getLong(str + 24);
      long strLen = b.getLong(str + 32);
      if (!inside(strOff, strLen, size)) {
        return null;
      }
      any = true;
      for (long e = off; e + 24 <= off + len; e += 24) {
        long name = Integer.toUnsignedLong(b.getInt((int) e));
        int shndx = Short.toUnsignedInt(b.getShort((int) e + 6));
        if (shndx == 0 || name >= strLen) {
          continue;
        }
        int at = (int) (strOff + name);
        int end = at;
        while (end < strOff + strLen && b.get(end) != 0) {
          end++;
        }
        byte[] n = new byte[end - at];
        b.get(at, n);
        defined.add(new String(n, java.nio.charset.StandardCharsets.ISO_8859_1));
      }
    }
    if (!any) {
      return null;
    }
    java.util.List<String> missing =
        NativeEngine.SYMBOLS.stream().filter(x -> !defined.contains(x)).toList();
    if (missing.isEmpty()) {
      return null;
    }
    return "is not a Strata engine library: it lacks "
        + (missing.size() == NativeEngine.SYMBOLS.size()
            ? "the engine's ABI symbols (" + missing.getFirst() + " and the rest)"
            : (missing.size() == 1 ? "the symbol " : "the symbols ") + String.join(", ", missing))
        + "; name the engine's library (libstrata_ref.so, or the Metal engine's .dylib)";
  }

  /** Mach-O 64 (mach-o/loader.h): the header, its load commands and each LC_SEGMENT_64. */
  private static String machO(ByteBuffer b, long size) {
    if (size < 32) {
      return truncated(size, "its header");
    }
    if (b.getInt(4) == CPU_TYPE_X86_64) {
      return "is built for another architecture (x86_64; Apple Silicon Macs load arm64): use the"
          + " arm64 build of the engine";
    }
    int ncmds = b.getInt(16);
    long sizeofcmds = Integer.toUnsignedLong(b.getInt(20));
    if (ncmds < 0 || !inside(32, sizeofcmds, size)) {
      return truncated(size, "its load commands");
    }
    long at = 0;
    for (int i = 0; i < ncmds; i++) {
      if (at + 8 > sizeofcmds) {
        return truncated(size, "its load commands");
      }
      int cmd = b.getInt(32 + (int) at);
      int cmdsize = b.getInt(32 + (int) at + 4);
      if (cmdsize < 8 || at + cmdsize > sizeofcmds) {
        return "is a damaged Mach-O library (load command " + i + " has a bad size)";
      }
      if (cmd == LC_SEGMENT_64 && cmdsize >= 72) {
        long fileoff = b.getLong(32 + (int) at + 40);
        long filesize = b.getLong(32 + (int) at + 48);
        if (!inside(fileoff, filesize, size)) {
          return truncated(size, segment("a segment", fileoff, filesize));
        }
      }
      at += cmdsize;
    }
    return null;
  }

  /**
   * "a segment at bytes 100..401": the offset and the end as the file's unsigned 64-bit fields mean
   * them (Elf64_Off / uint64_t), the end exact even where the sum passes 2^64.
   */
  private static String segment(String what, long offset, long length) {
    BigInteger start = new BigInteger(Long.toUnsignedString(offset));
    return what
        + " at bytes "
        + start
        + ".."
        + start.add(new BigInteger(Long.toUnsignedString(length)));
  }

  private static String truncated(long size, String what) {
    return "is truncated or damaged: "
        + what
        + " lie past its end ("
        + size
        + " bytes; rebuild or re-copy the library)";
  }
}
