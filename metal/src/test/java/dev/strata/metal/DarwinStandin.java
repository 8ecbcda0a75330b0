package dev.strata.metal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.strata.testsupport.RepoRoot;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;

/**
 * The Darwin stand-in (metal/src/test/native/darwin_standin.c), loaded once per JVM: its Apple
 * symbols for the probe ({@link #lookup()}) and its test controls. On Linux a missing library is a
 * failure, not a skip: the Maven build makes it. Elsewhere (a Mac) the tests that need it are
 * skipped, since the real libraries are there.
 */
// Restricted FFM calls are the point of this class.
@SuppressWarnings("restricted")
final class DarwinStandin {
  private static final Linker LINKER = Linker.nativeLinker();

  final Path library;
  private final SymbolLookup lookup;
  private final MethodHandle load;
  private final MethodHandle set;
  private final MethodHandle count;
  private final MethodHandle releaseHang;
  private final MethodHandle newArgs;

  private DarwinStandin(Path library) {
    this.library = library;
    lookup = SymbolLookup.libraryLookup(library, Arena.global());
    load = handle("standin_load", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    set = handle("standin_set", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    count = handle("standin_count", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    releaseHang = handle("standin_release_hang", FunctionDescriptor.ofVoid());
    newArgs = handle("standin_new_args", FunctionDescriptor.of(ADDRESS));
  }

  private static DarwinStandin instance;

  /** The stand-in; on Linux fails when it was not built, elsewhere aborts the test. */
  static synchronized DarwinStandin get() {
    Assumptions.assumeTrue(
        System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux"),
        "the Darwin stand-in is built for Linux only; on a Mac the live tests run");
    if (instance == null) {
      Path lib = libraryPath();
      if (!Files.isRegularFile(lib)) {
        throw new AssertionError(
            lib
                + " is missing: the metal module's build makes it (make -C"
                + " metal/src/test/native); run the tests through Maven");
      }
      instance = new DarwinStandin(lib);
    }
    return instance;
  }

  static Path libraryPath() {
    String p = System.getProperty("strata.standin.lib");
    if (p != null && !p.isBlank()) {
      return Path.of(p);
    }
    return RepoRoot.path().resolve("metal/target/darwin-standin/libdarwin_standin.so");
  }

  /** A recorded profile under src/test/resources/darwin-standin, e.g. "m4-pro-48". */
  static Path profile(String name) {
    try {
      return Path.of(
          DarwinStandin.class.getResource("/darwin-standin/" + name + ".profile").toURI());
    } catch (java.net.URISyntaxException | NullPointerException e) {
      throw new AssertionError("no profile " + name, e);
    }
  }

  SymbolLookup lookup() {
    return lookup;
  }

  MacSymbols symbols() {
    return MacSymbols.of(lookup);
  }

  /** Resets every counter and setting, then loads {@code profile}. */
  DarwinStandin load(String profile) {
    try (Arena a = Arena.ofConfined()) {
      int bad = (int) load.invokeExact(a.allocateFrom(profile(profile).toString()));
      if (bad != 0) {
        throw new AssertionError(profile + ": bad line " + bad);
      }
    } catch (Throwable t) {
      throw new AssertionError("the Darwin stand-in failed", t);
    }
    return this;
  }

  /**
   * One key (a sysctl name, metal.*, fault, objc.unrecognized): see standin_set in
   * darwin_standin.c.
   */
  DarwinStandin set(String key, String value) {
    try (Arena a = Arena.ofConfined()) {
      int rc = (int) set.invokeExact(a.allocateFrom(key), a.allocateFrom(value));
      if (rc != 0) {
        throw new AssertionError("standin_set " + key + " = " + value + " refused");
      }
    } catch (Throwable t) {
      throw new AssertionError("the Darwin stand-in failed", t);
    }
    return this;
  }

  /** A counter: retains, releases, pushes, pops, alive, created, overreleased, no_pool, ... */
  long count(String name) {
    try (Arena a = Arena.ofConfined()) {
      long v = (long) count.invokeExact(a.allocateFrom(name));
      if (v < 0) {
        throw new AssertionError("no counter " + name);
      }
      return v;
    } catch (Throwable t) {
      throw new AssertionError("the Darwin stand-in failed", t);
    }
  }

  void releaseHang() {
    try {
      releaseHang.invokeExact();
    } catch (Throwable t) {
      throw new AssertionError("the Darwin stand-in failed", t);
    }
  }

  MemorySegment newArgs() {
    try {
      return (MemorySegment) newArgs.invokeExact();
    } catch (Throwable t) {
      throw new AssertionError("the Darwin stand-in failed", t);
    }
  }

  private MethodHandle handle(String name, FunctionDescriptor d) {
    return LINKER.downcallHandle(lookup.find(name).orElseThrow(), d);
  }
}
