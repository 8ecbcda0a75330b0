package dev.strata.engine.ffm;

import dev.strata.engine.Os;
import dev.strata.engine.libc.NativeCalls;
import dev.strata.engine.libc.Posix;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code dlopen} of a checked engine library ({@link VerifiedLibrary}): through the descriptor it
 * holds or its private copy, never the configured path, with the symbols looked up in that handle
 * alone and {@code dlclose} when the engine's arena closes.
 */
@SuppressWarnings("restricted") // dlopen, dlsym and their segments: the point of this class
final class LibraryLoader {
  private LibraryLoader() {}

  /**
   * A loaded library.
   *
   * @param shown the path as configured, for messages
   * @param arena the engine's arena: closing it closes the library
   * @param lookup the library's own symbols
   */
  record Loaded(Path shown, Arena arena, SymbolLookup lookup) {

    /**
     * A downcall handle to one of the library's symbols.
     *
     * @throws EngineLoadException (exit 3) when the library lacks the symbol
     */
    MethodHandle downcall(String symbol, FunctionDescriptor d) {
      return NativeCalls.LINKER.downcallHandle(find(symbol), d);
    }

    /**
     * {@code strata_engine_abi_version()}, checked to be in {@code min..max} (the versions the
     * binding speaks).
     *
     * @throws EngineLoadException (exit 3) when the call fails or the version is another
     */
    int abiVersion(int min, int max) {
      MethodHandle abi =
          downcall("strata_engine_abi_version", FunctionDescriptor.of(ValueLayout.JAVA_INT));
      int version;
      try {
        version = (int) abi.invokeExact();
      } catch (Throwable t) {
        throw new EngineLoadException(
            "engine library " + shown + ": strata_engine_abi_version failed: " + t, t);
      }
      if (version < min || version > max) {
        throw new EngineLoadException(
            "engine library "
                + shown
                + " has ABI version "
                + version
                + ", this launcher speaks ABI versions "
                + min
                + ".."
                + max
                + " (use an engine and a launcher from the same release)");
      }
      return version;
    }

    /**
     * A downcall handle to {@code symbol}, or null when the library lacks it (an optional part).
     */
    MethodHandle downcallIfPresent(String symbol, FunctionDescriptor d) {
      return lookup.find(symbol).map(at -> NativeCalls.LINKER.downcallHandle(at, d)).orElse(null);
    }

    private MemorySegment find(String symbol) {
      return lookup
          .find(symbol)
          .orElseThrow(
              () ->
                  new EngineLoadException(
                      "engine library "
                          + shown
                          + " lacks the symbol "
                          + symbol
                          + " of the Strata engine ABI (not a Strata engine, or an incomplete"
                          + " build)"));
    }
  }

  private static final MethodHandle DLOPEN =
      NativeCalls.libc(
          "dlopen",
          FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
  private static final MethodHandle DLCLOSE =
      NativeCalls.libc("dlclose", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
  private static final MethodHandle DLSYM =
      NativeCalls.libc(
          "dlsym",
          FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
  private static final MethodHandle DLERROR =
      NativeCalls.libc("dlerror", FunctionDescriptor.of(ValueLayout.ADDRESS));

  /**
   * Loads the library.
   *
   * @throws EngineLoadException (exit 3) when the loader refuses it
   */
  static Loaded load(VerifiedLibrary library) {
    Path shown = library.checked().configured();
    int extra = -1;
    String name;
    try {
      name = dlopenName(library);
      if (!library.loadName(library.fd()).equals(name)) {
        extra = Integer.parseInt(name.substring(name.lastIndexOf('/') + 1));
      }
    } catch (IOException e) {
      throw new EngineLoadException(
          "engine library " + shown + " cannot be loaded: " + e.getMessage(), e);
    }
    Arena arena = Arena.ofShared();
    try {
      MemorySegment handle;
      try (Arena a = Arena.ofConfined()) {
        handle = (MemorySegment) DLOPEN.invokeExact(a.allocateFrom(name), RTLD_NOW_LOCAL);
      } catch (Throwable t) {
        throw NativeCalls.rethrow(t);
      }
      if (handle.equals(MemorySegment.NULL)) {
        throw new EngineLoadException(
            "engine library "
                + shown
                + " cannot be loaded: "
                + dlerror().replace(name, shown.toString()));
      }
      // dlclose when the engine's arena closes
      MemorySegment owned =
          handle.reinterpret(
              arena,
              h -> {
                try {
                  int ignored = (int) DLCLOSE.invokeExact(h);
                } catch (Throwable t) {
                  // the process is ending, or the library stays mapped: nothing to do
                }
              });
      SymbolLookup lookup =
          symbol -> {
            try (Arena a = Arena.ofConfined()) {
              MemorySegment s = (MemorySegment) DLSYM.invokeExact(owned, a.allocateFrom(symbol));
              return s.equals(MemorySegment.NULL)
                  ? Optional.empty()
                  : Optional.of(s.reinterpret(arena, null));
            } catch (Throwable t) {
              return Optional.empty();
            }
          };
      return new Loaded(shown, arena, lookup);
    } catch (RuntimeException e) {
      arena.close();
      throw e;
    } finally {
      if (extra >= 0) {
        Posix.close(extra);
      }
    }
  }

  /** {@code RTLD_NOW}, and {@code RTLD_LOCAL} (0 on Linux, 4 on macOS). */
  private static final int RTLD_NOW_LOCAL = Os.isMac() ? 2 | 4 : 2;

  /** {@code /proc/self/fd/N} names handed to dlopen in this process; never handed out twice. */
  private static final java.util.Set<String> NAMES_USED =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private static int nextFd = 64;

  /**
   * The name to {@code dlopen}. glibc returns an already-loaded object whose name matches before it
   * looks at the file, so a {@code /proc/self/fd/N} name used by an earlier load in this process (a
   * JVM that runs several launches: tests, the demo) could return the earlier library. Such a name
   * is never reused: the descriptor is duplicated to a number not used before.
   */
  private static synchronized String dlopenName(VerifiedLibrary library) throws IOException {
    String name = library.loadName(library.fd());
    if (library.checked().strategy() != VerifiedLibrary.Strategy.FD_PATH || NAMES_USED.add(name)) {
      return name;
    }
    for (int i = 0; i < 64; i++) {
      int fd = Posix.dupAtLeast(library.fd(), Math.max(nextFd, library.fd() + 1));
      nextFd = fd + 1;
      name = library.loadName(fd);
      if (NAMES_USED.add(name)) {
        return name;
      }
      Posix.close(fd);
    }
    throw new IOException("no unused descriptor number to load it through");
  }

  private static String dlerror() {
    try {
      MemorySegment msg = (MemorySegment) DLERROR.invokeExact();
      return msg.equals(MemorySegment.NULL)
          ? "the dynamic loader refused it"
          : msg.reinterpret(4096).getString(0);
    } catch (Throwable t) {
      return "the dynamic loader refused it";
    }
  }
}
