package dev.strata.engine.libc;

import dev.strata.engine.Os;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;

/**
 * The few POSIX calls that let the launcher check a file on the very object it then uses: {@code
 * open} (no link followed at the last hop, no blocking on a fifo, close-on-exec), {@code fstat} on
 * the open descriptor, {@code pread}, {@code close}, {@code fcntl(F_DUPFD_CLOEXEC)} and {@code
 * geteuid}, called through FFM. Java's own file API gives neither the descriptor number nor an
 * {@code fstat}, and {@code SymbolLookup.libraryLookup(Path)} re-resolves the path it is given
 * ({@code toRealPath}), so it cannot load "this open file" (docs/LAUNCH.md, "What is loaded").
 *
 * <p>The constants and the {@code struct stat} layout differ by platform; {@link Platform} holds
 * them (from glibc's {@code bits/fcntl-linux.h}, {@code asm-generic/fcntl.h}, {@code
 * bits/struct_stat.h} and macOS's {@code sys/fcntl.h}, {@code sys/stat.h}). The decoding is pure
 * and unit-tested for every platform; only Linux x86_64 ran live here.
 */
@SuppressWarnings("restricted") // FFM downcalls into libc: the point of this class
public final class Posix {

  /** One platform's flag values and {@code struct stat} offsets. */
  public enum Platform {
    /** glibc on x86_64: {@code struct stat} of 144 bytes. */
    LINUX_X86_64(new Layout(0400, 04000, 0400000, 02000000, 1030, 144, 0, 8, 8, 24, 4, 28, 32, 48)),
    /** glibc on aarch64 (the generic layout): 128 bytes. */
    LINUX_AARCH64(
        new Layout(0400, 04000, 0100000, 02000000, 1030, 128, 0, 8, 8, 16, 4, 24, 28, 48)),
    /** macOS (64-bit inodes, arm64 and x86_64 {@code $INODE64}): 144 bytes. */
    MACOS(new Layout(0x20000, 0x0004, 0x0100, 0x01000000, 67, 144, 0, 4, 8, 4, 2, 16, 20, 96));

    /** Its flag values and {@code struct stat} offsets. */
    final Layout layout;

    Platform(Layout layout) {
      this.layout = layout;
    }

    /** The platform of this JVM, or null where none of the layouts applies. */
    public static Platform here() {
      String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
      String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
      if (Os.isMac(os)) {
        return MACOS;
      }
      if (os.startsWith("linux")) {
        return switch (arch) {
          case "amd64", "x86_64" -> LINUX_X86_64;
          case "aarch64", "arm64" -> LINUX_AARCH64;
          default -> null;
        };
      }
      return null;
    }

    /** The flags of a read-only open that follows no link at the last hop and never blocks. */
    public int openReadFlags(boolean followLast) {
      Layout l = layout;
      return l.oNoctty | l.oNonblock | l.oCloexec | (followLast ? 0 : l.oNofollow);
    }

    /** Decodes a {@code struct stat} as this platform's {@code fstat} fills it. */
    public Stat decode(ByteBuffer raw) {
      ByteBuffer b = raw.duplicate().order(ByteOrder.nativeOrder());
      Layout l = layout;
      long dev =
          l.devBytes == 8 ? b.getLong(l.devOffset) : Integer.toUnsignedLong(b.getInt(l.devOffset));
      int mode =
          l.modeBytes == 4 ? b.getInt(l.modeOffset) : Short.toUnsignedInt(b.getShort(l.modeOffset));
      return new Stat(
          dev,
          b.getLong(l.inoOffset),
          mode,
          b.getInt(l.uidOffset),
          b.getInt(l.gidOffset),
          b.getLong(l.sizeOffset));
    }
  }

  /**
   * One platform's flag values ({@code O_NOCTTY}, {@code O_NONBLOCK}, {@code O_NOFOLLOW}, {@code
   * O_CLOEXEC}, {@code F_DUPFD_CLOEXEC}) and {@code struct stat}: its size, then the byte offset
   * (and for {@code st_dev}, {@code st_mode} the width in bytes) of each field read.
   */
  record Layout(
      int oNoctty,
      int oNonblock,
      int oNofollow,
      int oCloexec,
      int fDupfdCloexec,
      int statSize,
      int devOffset,
      int devBytes,
      int inoOffset,
      int modeOffset,
      int modeBytes,
      int uidOffset,
      int gidOffset,
      int sizeOffset) {}

  /**
   * What {@code fstat} says about an open file.
   *
   * @param dev the device
   * @param ino the inode number
   * @param mode {@code st_mode}: type bits ({@code S_IFMT}) and permission bits
   * @param uid the owner
   * @param gid the group
   * @param size bytes
   */
  public record Stat(long dev, long ino, int mode, int uid, int gid, long size) {
    /** {@code S_IFMT}, {@code S_IFREG}: the same values on Linux and macOS. */
    static final int S_IFMT = 0170000;

    static final int S_IFREG = 0100000;

    /** Whether this is a regular file. */
    public boolean regularFile() {
      return (mode & S_IFMT) == S_IFREG;
    }

    /** The permission bits with setuid/setgid/sticky ({@code mode & 07777}). */
    public int permissions() {
      return mode & 07777;
    }
  }

  private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO =
      CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
  private static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");

  private Posix() {}

  /** The effective user id of this process. */
  public static int geteuid() {
    try {
      return (int) Calls.GETEUID.invokeExact();
    } catch (Throwable t) {
      throw new IllegalStateException("geteuid failed", t);
    }
  }

  /**
   * Opens {@code path} read-only; with {@code followLast} false a symlink at the last hop fails
   * ({@code ELOOP}) instead of being followed.
   *
   * @return the descriptor
   * @throws IOException with the system's reason
   */
  public static int open(String path, boolean followLast) throws IOException {
    int flags = platform().openReadFlags(followLast);
    return call(
        "open", (a, state) -> (int) Calls.OPEN.invokeExact(state, a.allocateFrom(path), flags));
  }

  /** {@code fstat(fd)}. */
  public static Stat fstat(int fd) throws IOException {
    Platform pf = platform();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment state = a.allocate(CALL_STATE);
      MemorySegment buf = a.allocate(pf.layout.statSize, 8);
      int rc = (int) Calls.FSTAT.invokeExact(state, fd, buf);
      if (rc != 0) {
        throw failure(state);
      }
      return pf.decode(buf.asByteBuffer());
    } catch (IOException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("fstat failed", t);
    }
  }

  /**
   * Reads the whole of an open regular file of {@code size} bytes from offset 0 ({@code pread}, so
   * the descriptor's offset is untouched).
   *
   * @throws IOException on a read error, or when the file ends before {@code size} bytes
   */
  public static byte[] readAll(int fd, long size) throws IOException {
    if (size < 0 || size > Integer.MAX_VALUE - 16) {
      throw new IOException("too large to be a library (" + size + " bytes)");
    }
    byte[] out = new byte[(int) size];
    try (Arena a = Arena.ofConfined()) {
      MemorySegment state = a.allocate(CALL_STATE);
      int chunk = 1 << 20;
      MemorySegment buf = a.allocate(chunk);
      int at = 0;
      while (at < out.length) {
        long want = Math.min(chunk, out.length - at);
        long n = (long) Calls.PREAD.invokeExact(state, fd, buf, want, (long) at);
        if (n < 0) {
          int errno = (int) ERRNO.get(state, 0L);
          if (errno == EINTR) {
            continue;
          }
          throw new IOException(strerror(errno));
        }
        if (n == 0) {
          throw new IOException("the file ended at byte " + at + " of " + size);
        }
        MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, out, at, (int) n);
        at += (int) n;
      }
      return out;
    } catch (IOException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("pread failed", t);
    }
  }

  /** {@code close(fd)}; errors are ignored (a read-only descriptor has nothing to flush). */
  public static void close(int fd) {
    try {
      int ignored = (int) Calls.CLOSE.invokeExact(fd);
    } catch (Throwable t) {
      // nothing to do
    }
  }

  /**
   * {@code fcntl(fd, F_DUPFD_CLOEXEC, min)}: a copy of {@code fd} numbered {@code min} or above.
   *
   * @throws IOException with the system's reason (for example {@code min} beyond the open-files
   *     limit)
   */
  public static int dupAtLeast(int fd, int min) throws IOException {
    int cmd = platform().layout.fDupfdCloexec;
    return call("fcntl", (a, state) -> (int) Calls.FCNTL.invokeExact(state, fd, cmd, min));
  }

  /** A libc call that returns an int, -1 on failure with errno in the captured call state. */
  @FunctionalInterface
  private interface ErrnoCall {
    int invoke(Arena a, MemorySegment state) throws Throwable;
  }

  /**
   * Runs {@code c} with a fresh call state: its result when not negative, else the system's reason
   * as an IOException.
   */
  private static int call(String fn, ErrnoCall c) throws IOException {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment state = a.allocate(CALL_STATE);
      int rc = c.invoke(a, state);
      if (rc < 0) {
        throw failure(state);
      }
      return rc;
    } catch (IOException e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(fn + " failed", t);
    }
  }

  /** The failure of a call whose errno {@code state} captured: the system's words (strerror). */
  private static IOException failure(MemorySegment state) {
    return new IOException(strerror((int) ERRNO.get(state, 0L)));
  }

  private static final int EINTR = 4; // Linux and macOS alike

  private static Platform platform() throws IOException {
    Platform pf = Platform.here();
    if (pf == null) {
      throw new IOException(
          "this platform ("
              + System.getProperty("os.name")
              + " "
              + System.getProperty("os.arch")
              + ") has no known struct stat layout");
    }
    return pf;
  }

  private static String strerror(int errno) {
    try {
      MemorySegment s = (MemorySegment) Calls.STRERROR.invokeExact(errno);
      return s.equals(MemorySegment.NULL) ? "errno " + errno : s.reinterpret(256).getString(0);
    } catch (Throwable t) {
      return "errno " + errno;
    }
  }

  /** The libc handles, resolved on first use. */
  private static final class Calls {
    static final MethodHandle GETEUID =
        NativeCalls.libc("geteuid", FunctionDescriptor.of(ValueLayout.JAVA_INT));
    static final MethodHandle OPEN =
        NativeCalls.libc(
            "open",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
            CAPTURE);
    static final MethodHandle FSTAT =
        NativeCalls.libc(
            "fstat",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS),
            CAPTURE);
    static final MethodHandle PREAD =
        NativeCalls.libc(
            "pread",
            FunctionDescriptor.of(
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG),
            CAPTURE);
    static final MethodHandle CLOSE =
        NativeCalls.libc(
            "close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    static final MethodHandle FCNTL =
        NativeCalls.libc(
            "fcntl",
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT),
            CAPTURE,
            Linker.Option.firstVariadicArg(2));
    static final MethodHandle STRERROR =
        NativeCalls.libc(
            "strerror", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));

    private Calls() {}
  }
}
