package dev.strata.metal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * {@code sysctlbyname(3)} through FFM: {@code int sysctlbyname(const char *name, void *oldp, size_t
 * *oldlenp, void *newp, size_t newlen)}. {@link #darwin()} binds libSystem's (the default lookup,
 * once per process); tests bind the Darwin stand-in's with {@link #bind}.
 */
// Restricted FFM calls are the point of this class; the launcher scripts pass
// --enable-native-access=ALL-UNNAMED.
@SuppressWarnings("restricted")
final class Sysctl {
  /** No value the probe reads is anywhere near this; a larger answer is not trusted. */
  private static final long MAX_VALUE_BYTES = 4096;

  static final FunctionDescriptor SIGNATURE =
      FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG);

  private final MethodHandle sysctlbyname;

  private Sysctl(MethodHandle sysctlbyname) {
    this.sysctlbyname = sysctlbyname;
  }

  private static final class Holder {
    static final Sysctl DARWIN = bind(Linker.nativeLinker().defaultLookup());
  }

  /**
   * libSystem's sysctlbyname, bound on first use.
   *
   * @throws IllegalStateException when it cannot be bound (not a Mac)
   */
  static Sysctl darwin() {
    try {
      return Holder.DARWIN;
    } catch (ExceptionInInitializerError | NoClassDefFoundError e) {
      throw new IllegalStateException("sysctlbyname is not available on this system", e);
    }
  }

  /**
   * The {@code sysctlbyname} of {@code lookup}.
   *
   * @throws IllegalStateException when {@code lookup} has no such symbol
   */
  static Sysctl bind(SymbolLookup lookup) {
    return new Sysctl(
        Linker.nativeLinker()
            .downcallHandle(
                lookup
                    .find("sysctlbyname")
                    .orElseThrow(
                        () ->
                            new IllegalStateException(
                                "sysctlbyname is not available on this system")),
                SIGNATURE));
  }

  /**
   * The raw value of {@code name}: a size query with a NULL buffer first, then the read into a
   * buffer of that size. Empty when the name does not exist on this machine (e.g. {@code
   * iogpu.wired_limit_mb} before macOS 14, {@code hw.nperflevels} on Intel).
   */
  Optional<byte[]> read(String name) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment cname = arena.allocateFrom(name);
      MemorySegment size = arena.allocate(JAVA_LONG);
      int rc =
          (int) sysctlbyname.invokeExact(cname, MemorySegment.NULL, size, MemorySegment.NULL, 0L);
      long want = size.get(JAVA_LONG, 0);
      if (rc != 0 || want <= 0 || want > MAX_VALUE_BYTES) {
        return Optional.empty();
      }
      MemorySegment buffer = arena.allocate(want);
      rc = (int) sysctlbyname.invokeExact(cname, buffer, size, MemorySegment.NULL, 0L);
      long got = size.get(JAVA_LONG, 0);
      if (rc != 0 || got < 0 || got > want) {
        return Optional.empty();
      }
      return Optional.of(buffer.asSlice(0, got).toArray(JAVA_BYTE));
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
